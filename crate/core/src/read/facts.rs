//! Per-file request facts the doctor reads: do the dedupe keys still collapse streamed
//! fragments, and which request groups never got a stop_reason.

use crate::scan::record::F_SIDECHAIN;
use crate::scan::Scan;
use rustc_hash::FxHashMap as HashMap;

#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct RequestFacts {
    /// Assistant entries carrying usage (`<synthetic>` ones excluded).
    pub assistant_entries: u64,
    pub synthetic_entries: u64,
    pub entries_with_request_id: u64,
    pub sidechain_entries: u64,
    pub distinct_requests: u64,
    /// Entries folded into another entry of the same request.
    pub duplicates_collapsed: u64,
    /// Request groups in which no entry has a non-null `stop_reason`.
    pub null_stop_groups: u64,
}

pub fn request_facts(scan: &Scan) -> RequestFacts {
    let mut f = RequestFacts::default();
    let mut groups: HashMap<&str, bool> = HashMap::default();
    let mut keyless_null = 0;
    let mut keyless = 0;
    for r in &scan.records {
        if r.usage.is_none() || scan.tables.strings.opt(r.kind) != Some("assistant") {
            continue;
        }
        if scan.tables.strings.opt(r.model) == Some("<synthetic>") {
            f.synthetic_entries += 1;
            continue;
        }
        f.assistant_entries += 1;
        if r.request_id.is_some() {
            f.entries_with_request_id += 1;
        }
        if r.has(F_SIDECHAIN) {
            f.sidechain_entries += 1;
        }
        let stopped = r.stop_reason.is_some();
        match scan.tables.strings.opt(crate::client::records::request_key(r)) {
            Some(k) => *groups.entry(k).or_insert(false) |= stopped,
            None => {
                keyless += 1;
                keyless_null += u64::from(!stopped);
            }
        }
    }
    f.distinct_requests = groups.len() as u64 + keyless;
    f.duplicates_collapsed = f.assistant_entries - f.distinct_requests;
    f.null_stop_groups = groups.values().filter(|s| !**s).count() as u64 + keyless_null;
    f
}

/// What one scan says about its file as a whole: the span of its timestamps, the last client
/// version, the session and folder it was recorded in, and its request facts.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct FileFacts {
    pub first_timestamp_ms: Option<i64>,
    pub last_timestamp_ms: Option<i64>,
    /// The `version` of the last record that has one.
    pub last_version: Option<String>,
    /// The `sessionId` and `cwd` of the first record that has one.
    pub session_id: Option<String>,
    pub cwd: Option<String>,
    pub requests: RequestFacts,
}

pub fn file_facts(scan: &Scan) -> FileFacts {
    let (mut first, mut last) = (None::<i64>, None::<i64>);
    for t in scan.records.iter().filter_map(|r| r.timestamp_ms) {
        first = Some(first.map_or(t, |v| v.min(t)));
        last = Some(last.map_or(t, |v| v.max(t)));
    }
    let text = |v: crate::scan::record::Str| scan.str(v).to_string();
    FileFacts {
        first_timestamp_ms: first,
        last_timestamp_ms: last,
        last_version: scan.records.iter().rev().find_map(|r| r.version).map(text),
        session_id: scan.records.iter().find_map(|r| r.session_id).map(text),
        cwd: scan.records.iter().find_map(|r| r.cwd).map(text),
        requests: request_facts(scan),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::scan::{scan_bytes, Mode};

    #[test]
    fn file_facts_take_the_timestamp_span_first_session_and_last_version() {
        let src = concat!(
            r#"{"type":"user","uuid":"a","sessionId":"s1","cwd":"/w","version":"1.0","timestamp":"2025-01-01T00:00:02.000Z"}"#,
            "\n",
            r#"{"type":"user","uuid":"b","sessionId":"s2","version":"1.1","timestamp":"2025-01-01T00:00:01.000Z"}"#,
            "\n",
            r#"{"type":"summary","leafUuid":"b"}"#,
            "\n",
        );
        let f = file_facts(&scan_bytes(src.as_bytes(), Mode::Full));
        assert_eq!(f.first_timestamp_ms, Some(1_735_689_601_000));
        assert_eq!(f.last_timestamp_ms, Some(1_735_689_602_000));
        assert_eq!(f.last_version.as_deref(), Some("1.1"));
        assert_eq!(f.session_id.as_deref(), Some("s1"));
        assert_eq!(f.cwd.as_deref(), Some("/w"));
        assert_eq!(f.requests, RequestFacts::default());
    }

    #[test]
    fn file_facts_of_an_empty_scan_are_empty() {
        assert_eq!(file_facts(&scan_bytes(b"", Mode::Full)), FileFacts::default());
    }
}
