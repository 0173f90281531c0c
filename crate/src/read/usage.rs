//! Token usage deduplicated per request, estate-wide, summed into small buckets that the
//! TypeScript side groups and prices (it owns policy: time zone, grouping, price table).
//!
//! Rules (see the deglacer reference and ccusage's issues):
//! - a request is the group of assistant entries sharing `requestId`, else `message.id`;
//!   groups are global across files;
//! - a group counts the WHOLE usage row of its entry with the largest `output_tokens` (the
//!   first such entry on ties, files in path order): output grows while a response streams;
//! - a group whose entries are all sidechain entries and whose `message.id` also appears on a
//!   non-sidechain entry is a sidechain replay of the parent's message, and is not counted;
//! - `<synthetic>` entries are local, not API requests;
//! - tool calls are distinct `tool_use` ids of counted groups.

use crate::scan::{Scan, Str};
use rustc_hash::{FxHashMap as HashMap, FxHashSet as HashSet};

/// Bucket width in time. 15 minutes divides every real UTC offset, so the TS side can turn
/// buckets into local days exactly.
pub const SLOT_MS: i64 = 15 * 60 * 1000;
/// Per-request input above which long-context pricing applies to the whole request.
pub const LONG_CONTEXT_TOKENS: u64 = 200_000;

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Lane {
    None = 0,
    Vertex = 1,
    Other = 2,
}

impl Lane {
    pub fn of(request_id: Option<&str>) -> Lane {
        match request_id {
            None => Lane::None,
            Some(r) if r.starts_with("req_vrtx_") => Lane::Vertex,
            Some(_) => Lane::Other,
        }
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct BucketKey {
    pub session: u32,
    /// Slot start in ms since the epoch, `i64::MIN` when the entry had no timestamp.
    pub slot: i64,
    pub model: u32,
    pub subagent: bool,
    pub lane: Lane,
    pub long_context: bool,
}

#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Tokens {
    pub requests: u64,
    pub input: u64,
    pub cache_creation: u64,
    /// Cache writes split by TTL for pricing; entries without the split count as 5-minute.
    pub cache_5m: u64,
    pub cache_1h: u64,
    pub cache_read: u64,
    pub output: u64,
}

#[derive(Debug, Default)]
pub struct UsageReport {
    pub models: Vec<String>,
    pub buckets: Vec<(BucketKey, Tokens)>,
    pub tool_names: Vec<String>,
    /// (bucket index, tool name index, calls)
    pub tools: Vec<(u32, u32, u64)>,
    pub assistant_entries: u64,
    pub synthetic_entries: u64,
    pub sidechain_replays: u64,
}

struct Group {
    file: u32,
    rec: u32,
    max_output: u64,
    all_sidechain: bool,
    message_id: Option<Str>,
    lane: Lane,
}

fn interned(map: &mut HashMap<String, u32>, names: &mut Vec<String>, s: &str) -> u32 {
    if let Some(&i) = map.get(s) {
        return i;
    }
    names.push(s.to_string());
    map.insert(s.to_string(), (names.len() - 1) as u32);
    (names.len() - 1) as u32
}

/// `scans` are in path order; `session_of_file[i]` and `subagent_file[i]` describe file i.
pub fn aggregate(scans: &[&Scan], session_of_file: &[u32], subagent_file: &[bool]) -> UsageReport {
    let mut report = UsageReport::default();
    let mut groups: Vec<Group> = Vec::new();
    let mut by_key: HashMap<&str, u32> = HashMap::default();
    let mut main_chain_messages: HashSet<&str> = HashSet::default();
    let mut entries: Vec<(u32, u32, u32)> = Vec::new();

    for (fi, scan) in scans.iter().enumerate() {
        for (ri, r) in scan.records.iter().enumerate() {
            let Some(u) = r.usage else { continue };
            if scan.tables.strings.opt(r.kind) != Some("assistant") {
                continue;
            }
            if scan.tables.strings.opt(r.model) == Some("<synthetic>") {
                report.synthetic_entries += 1;
                continue;
            }
            report.assistant_entries += 1;
            let sidechain = r.has(crate::scan::record::F_SIDECHAIN);
            let message_id = scan.tables.strings.opt(r.message_id);
            if let (false, Some(m)) = (sidechain, message_id) {
                main_chain_messages.insert(m);
            }
            let request_id = scan.tables.strings.opt(r.request_id);
            let gi = match request_id.or(message_id).and_then(|k| by_key.get(k).copied()) {
                Some(gi) => {
                    let g = &mut groups[gi as usize];
                    if u.output > g.max_output {
                        (g.file, g.rec, g.max_output) = (fi as u32, ri as u32, u.output);
                    }
                    g.all_sidechain &= sidechain;
                    gi
                }
                None => {
                    groups.push(Group {
                        file: fi as u32,
                        rec: ri as u32,
                        max_output: u.output,
                        all_sidechain: sidechain,
                        message_id: r.message_id,
                        lane: Lane::of(request_id),
                    });
                    let gi = (groups.len() - 1) as u32;
                    if let Some(k) = request_id.or(message_id) {
                        by_key.insert(k, gi);
                    }
                    gi
                }
            };
            entries.push((fi as u32, ri as u32, gi));
        }
    }

    let dropped: Vec<bool> = groups
        .iter()
        .map(|g| {
            g.all_sidechain && g.message_id.is_some_and(|m| main_chain_messages.contains(scans[g.file as usize].str(m)))
        })
        .collect();
    report.sidechain_replays = dropped.iter().filter(|d| **d).count() as u64;

    let mut model_index = HashMap::default();
    let mut bucket_index: HashMap<BucketKey, usize> = HashMap::default();
    let mut bucket_of = |report: &mut UsageReport, fi: u32, ri: u32, lane: Lane, long_context: bool| -> usize {
        let scan = scans[fi as usize];
        let r = &scan.records[ri as usize];
        let model = interned(&mut model_index, &mut report.models, scan.tables.strings.opt(r.model).unwrap_or(""));
        let key = BucketKey {
            session: session_of_file[fi as usize],
            slot: r.timestamp_ms.map_or(i64::MIN, |t| t.div_euclid(SLOT_MS) * SLOT_MS),
            model,
            subagent: subagent_file[fi as usize],
            lane,
            long_context,
        };
        *bucket_index.entry(key).or_insert_with(|| {
            report.buckets.push((key, Tokens::default()));
            report.buckets.len() - 1
        })
    };

    for (g, _) in groups.iter().zip(&dropped).filter(|(_, d)| !**d) {
        let u = scans[g.file as usize].records[g.rec as usize].usage.unwrap_or_default();
        let long_context = u.input + u.cache_creation + u.cache_read > LONG_CONTEXT_TOKENS;
        let b = bucket_of(&mut report, g.file, g.rec, g.lane, long_context);
        let t = &mut report.buckets[b].1;
        let w1h = if u.cache_5m.is_some() || u.cache_1h.is_some() {
            u.cache_1h.unwrap_or(0).min(u.cache_creation)
        } else {
            0
        };
        t.requests += 1;
        t.input += u.input;
        t.cache_creation += u.cache_creation;
        t.cache_1h += w1h;
        t.cache_5m += u.cache_creation - w1h;
        t.cache_read += u.cache_read;
        t.output += u.output;
    }

    let mut seen_tool_ids: HashSet<&str> = HashSet::default();
    let mut tool_index = HashMap::default();
    let mut tool_counts: HashMap<(u32, u32), u64> = HashMap::default();
    for &(fi, ri, gi) in &entries {
        if dropped[gi as usize] {
            continue;
        }
        let scan = scans[fi as usize];
        let r = &scan.records[ri as usize];
        for tu in scan.tables.tool_uses(r) {
            let id = scan.str(tu.id);
            if !id.is_empty() && !seen_tool_ids.insert(id) {
                continue;
            }
            let g = &groups[gi as usize];
            let u = scans[g.file as usize].records[g.rec as usize].usage.unwrap_or_default();
            let long_context = u.input + u.cache_creation + u.cache_read > LONG_CONTEXT_TOKENS;
            let b = bucket_of(&mut report, fi, ri, g.lane, long_context) as u32;
            let name = interned(&mut tool_index, &mut report.tool_names, scan.str(tu.name));
            *tool_counts.entry((b, name)).or_insert(0) += 1;
        }
    }

    // Deterministic order: buckets by key, tools by (bucket, name).
    let mut order: Vec<usize> = (0..report.buckets.len()).collect();
    order.sort_by_key(|&i| report.buckets[i].0);
    let mut new_index = vec![0u32; order.len()];
    for (new, &old) in order.iter().enumerate() {
        new_index[old] = new as u32;
    }
    report.buckets = order.iter().map(|&i| report.buckets[i]).collect();
    report.tools = tool_counts.into_iter().map(|((b, n), c)| (new_index[b as usize], n, c)).collect();
    report.tools.sort_unstable();
    report
}

#[cfg(test)]
mod tests;
