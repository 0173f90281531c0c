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
