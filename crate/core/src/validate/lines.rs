//! The file as lines: every line a JSON object, no torn last line, no internal planning field.

use super::codes::Code;
use super::{Ctx, INTERNAL_FIELDS};
use crate::scan::reparse::parse_line;
use crate::scan::BadKind;
use simd_json::OwnedValue as V;

/// Every non-blank line is a JSON object; a cut-short last line is reported too.
pub(super) fn check_lines(cx: &mut Ctx) {
    let s = cx.scan;
    for b in &s.bad_lines {
        let code = if b.kind == BadKind::NonObject { Code::NonObject } else { Code::BadJson };
        cx.push(code, vec![b.line], format!("line {} {}", b.line, b.kind.phrase()));
    }
    let bad = s.counts.bad_json_lines + s.counts.non_object_lines;
    if bad > s.bad_lines.len() as u64 {
        cx.push(
            Code::BadJson,
            vec![],
            format!(
                "{} more lines are not JSON objects (only the first {} are listed)",
                bad - s.bad_lines.len() as u64,
                s.bad_lines.len()
            ),
        );
    }
    if s.torn_tail {
        let last = s.counts.lines as u32;
        cx.push(Code::TornTail, vec![last], format!("the last line ({last}) is cut short: a write was interrupted"));
    }
}

/// Internal planning fields, anywhere in a record (any depth). Lines are prefiltered by the
/// quoted name, then parsed to confirm it is a key and not text inside a string.
pub(super) fn check_internal_fields(cx: &mut Ctx) {
    // Every name ends in `Indexes`: one pass finds the candidate lines.
    debug_assert!(INTERNAL_FIELDS.iter().all(|f| f.ends_with("Indexes")));
    let finder = memchr::memmem::Finder::new(b"Indexes\"");
    let s = cx.scan;
    for r in &s.records {
        let Some(line) = cx.bytes.get(r.offset as usize..r.offset as usize + r.len as usize) else { continue };
        if finder.find(line).is_none() {
            continue;
        }
        let Some(v) = parse_line(cx.bytes, r) else { continue };
        let mut found: Vec<String> = Vec::new();
        let mut stack = vec![&v];
        while let Some(x) = stack.pop() {
            match x {
                V::Object(o) => {
                    for (k, val) in o.iter() {
                        if INTERNAL_FIELDS.contains(&k.as_str()) && !found.contains(k) {
                            found.push(k.clone());
                        }
                        stack.push(val);
                    }
                }
                V::Array(a) => stack.extend(a.iter()),
                _ => {}
            }
        }
        for f in found {
            cx.push(
                Code::InternalField,
                vec![r.line],
                format!(
                    "line {} carries the internal planning field '{f}', which must not be written to a transcript",
                    r.line
                ),
            );
        }
    }
}
