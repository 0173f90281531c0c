//! One record line parsed again from the file's bytes by its span, for the few fields the
//! record index does not keep (lone surrogates repaired as the scanner repairs them).

use super::{record, surrogate};
use simd_json::OwnedValue as V;

pub fn parse_line(bytes: &[u8], r: &record::Record) -> Option<V> {
    let start = r.offset as usize;
    parse_bytes(bytes.get(start..start + r.len as usize)?)
}

/// One JSON text as a value, lone surrogate escapes read as U+FFFD; None when it does not parse.
pub fn parse_bytes(line: &[u8]) -> Option<V> {
    let mut buf = line.to_vec();
    if let Ok(v) = simd_json::to_owned_value(&mut buf) {
        return Some(v);
    }
    let lone = surrogate::find_lone_surrogates(line);
    if lone.is_empty() {
        return None;
    }
    let mut buf = line.to_vec();
    surrogate::repair(&mut buf, &lone);
    simd_json::to_owned_value(&mut buf).ok()
}

pub fn get<'v>(v: &'v V, key: &str) -> Option<&'v V> {
    match v {
        V::Object(o) => o.get(key),
        _ => None,
    }
}

pub fn as_str(v: Option<&V>) -> Option<&str> {
    match v {
        Some(V::String(s)) => Some(s.as_str()),
        _ => None,
    }
}
