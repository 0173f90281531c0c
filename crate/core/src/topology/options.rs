//! The planning options as a caller spelled them, checked once: unknown policy names, a policy
//! combination that cannot hold, and a target ratio outside (0, 1] are usage errors.

use super::{CheckpointPolicy, LeafPolicy};
use crate::failure::{Code, Failure};

/// The option values a person types, before they are known to be valid.
#[derive(Clone, Debug, Default)]
pub struct Spelled<'a> {
    pub leaf_policy: Option<&'a str>,
    pub checkpoint_policy: Option<&'a str>,
    pub preserve_physical_tail: bool,
    pub target_ratio: Option<f64>,
}

/// Checks the options in the order a person reads them; the first problem is the error.
pub fn check(o: &Spelled) -> Result<(), Failure> {
    let usage = |m: String| Err(Failure::new(Code::Usage, m));
    if let Some(v) = o.leaf_policy {
        if LeafPolicy::parse(v).is_none() {
            return usage(format!("--leaf-policy must be strict, client or auto, not '{v}'"));
        }
    }
    if let Some(v) = o.checkpoint_policy {
        match CheckpointPolicy::parse(v) {
            None => {
                return usage(format!(
                    "--checkpoint-policy must be active-correlated, preserve-recent or none, not '{v}'"
                ))
            }
            Some(CheckpointPolicy::PreserveRecent) if !o.preserve_physical_tail => {
                return usage(
                    "--checkpoint-policy preserve-recent needs --preserve-physical-tail (it keeps snapshots of inactive branches)"
                        .into(),
                )
            }
            Some(_) => {}
        }
    }
    if let Some(r) = o.target_ratio {
        check_target_ratio(r)?;
    }
    Ok(())
}

/// The kept suffix's share of the input: more than nothing, at most all of it.
pub fn check_target_ratio(r: f64) -> Result<f64, Failure> {
    if r > 0.0 && r <= 1.0 {
        Ok(r)
    } else {
        Err(Failure::new(Code::Usage, format!("--target-ratio must be in (0, 1], not '{}'", js_number(r))))
    }
}

/// A number as JavaScript prints it, so the message reads the same whichever side made it.
fn js_number(r: f64) -> String {
    if r.is_nan() {
        "NaN".into()
    } else if r.is_infinite() {
        if r > 0.0 { "Infinity" } else { "-Infinity" }.into()
    } else if r != 0.0 && (r.abs() >= 1e21 || r.abs() < 1e-6) {
        let e = format!("{r:e}");
        match e.split_once('e') {
            Some((m, x)) if !x.starts_with('-') => format!("{m}e+{x}"),
            _ => e,
        }
    } else {
        format!("{r}")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn msg(o: Spelled) -> String {
        let f = check(&o).unwrap_err();
        assert_eq!(f.code, Code::Usage);
        f.message
    }

    #[test]
    fn valid_options_pass() {
        assert!(check(&Spelled::default()).is_ok());
        let o = Spelled {
            leaf_policy: Some("client"),
            checkpoint_policy: Some("preserve-recent"),
            preserve_physical_tail: true,
            target_ratio: Some(1.0),
        };
        assert!(check(&o).is_ok());
    }

    #[test]
    fn unknown_policies_and_impossible_combinations_are_usage_errors() {
        assert_eq!(
            msg(Spelled { leaf_policy: Some("newest"), ..Default::default() }),
            "--leaf-policy must be strict, client or auto, not 'newest'"
        );
        assert_eq!(
            msg(Spelled { checkpoint_policy: Some("all"), ..Default::default() }),
            "--checkpoint-policy must be active-correlated, preserve-recent or none, not 'all'"
        );
        assert!(msg(Spelled { checkpoint_policy: Some("preserve-recent"), ..Default::default() })
            .contains("needs --preserve-physical-tail"));
        // the first problem in reading order wins
        assert!(msg(Spelled { leaf_policy: Some("x"), target_ratio: Some(0.0), ..Default::default() })
            .starts_with("--leaf-policy"));
    }

    #[test]
    fn the_target_ratio_is_in_the_half_open_unit_interval() {
        assert_eq!(check_target_ratio(0.3), Ok(0.3));
        assert_eq!(check_target_ratio(1.0), Ok(1.0));
        for (r, shown) in [(0.0, "0"), (1.5, "1.5"), (-0.25, "-0.25"), (f64::NAN, "NaN"), (f64::INFINITY, "Infinity")] {
            assert_eq!(
                check_target_ratio(r).unwrap_err().message,
                format!("--target-ratio must be in (0, 1], not '{shown}'")
            );
        }
        assert_eq!(js_number(1e21), "1e+21");
        assert_eq!(js_number(2.0), "2");
    }
}
