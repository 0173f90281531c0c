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
//! - tool calls are distinct `tool_use` ids of counted groups, each with its target (see
//!   [`super::tool_targets`]);
//! - a request's prompt (input + cache writes + cache reads) is placed in a band by thresholds
//!   the caller passes: which threshold means long-context pricing is the price table's decision,
//!   not this module's;
//! - `usage.speed` is kept as written, for the price table to interpret.

use super::tool_targets::{TargetCounts, NO_TARGET};
use crate::scan::{Scan, Usage};
use rayon::prelude::*;
use rustc_hash::{FxHashMap as HashMap, FxHashSet as HashSet};
use xxhash_rust::xxh3::{xxh3_128, xxh3_64};

/// Bucket width in time. 15 minutes divides every real UTC offset, so the TS side can turn
/// buckets into local days exactly.
pub const SLOT_MS: i64 = 15 * 60 * 1000;

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
    /// How many of the caller's prompt thresholds the request's prompt exceeds.
    pub prompt_band: u8,
    /// Index in [`UsageReport::speeds`] of `usage.speed` ("" when absent).
    pub speed: u32,
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
    /// Assistant entries the requests were deduplicated from (every fragment and repeat).
    pub entries: u64,
}

#[derive(Debug, Default)]
pub struct UsageReport {
    pub models: Vec<String>,
    /// `usage.speed` values met, "" (absent) among them.
    pub speeds: Vec<String>,
    pub buckets: Vec<(BucketKey, Tokens)>,
    pub tool_names: Vec<String>,
    /// (bucket index, tool name index, calls)
    pub tools: Vec<(u32, u32, u64)>,
    /// The same calls split by target.
    pub tool_targets: TargetCounts,
    pub assistant_entries: u64,
    pub synthetic_entries: u64,
    pub sidechain_replays: u64,
    /// Entries (not requests) whose usage was malformed; they count with what could be read.
    pub malformed_usage_entries: u64,
}

/// What aggregation needs of one assistant entry, gathered per file in parallel so that the
/// sequential grouping below reads small rows instead of scattered records and strings.
/// Keys are 128-bit xxh3 hashes of the id strings: no collision is expected among the
/// ids of any estate (the odds are about n²/2^129), and equality on them is exact otherwise.
struct Row {
    /// Hash of `requestId`, else of `message.id`; 0 when the entry has neither.
    key: u128,
    /// Hash of `message.id`; 0 when absent.
    message: u128,
    model: u64,
    /// Hash of `usage.speed`, 0 when absent.
    speed: u64,
    slot: i64,
    usage: Usage,
    sidechain: bool,
    lane: Lane,
    /// Range in the file's `tools`.
    tools: (u32, u32),
    rec: u32,
}

struct FileRows {
    rows: Vec<Row>,
    /// (hash of the tool_use id, 0 when empty; hash of the tool name; hash of the target, 0
    /// when none)
    tools: Vec<(u128, u64, u64)>,
    synthetic: u64,
    malformed: u64,
}

fn h128(s: &str) -> u128 {
    // Never 0, which stands for "absent".
    xxh3_128(s.as_bytes()) | 1
}

fn file_rows(scan: &Scan) -> FileRows {
    let mut out = FileRows { rows: Vec::new(), tools: Vec::new(), synthetic: 0, malformed: 0 };
    let strings = &scan.tables.strings;
    for (ri, r) in scan.records.iter().enumerate() {
        let Some(usage) = r.usage else { continue };
        if strings.opt(r.kind) != Some("assistant") {
            continue;
        }
        let model = strings.opt(r.model).unwrap_or("");
        if model == "<synthetic>" {
            out.synthetic += 1;
            continue;
        }
        out.malformed += usage.malformed as u64;
        let request_id = strings.opt(r.request_id);
        let message_id = strings.opt(r.message_id);
        let start = out.tools.len() as u32;
        for tu in scan.tables.tool_uses(r) {
            let id = strings.get(tu.id);
            let target = strings.opt(tu.target).map_or(0, |t| xxh3_64(t.as_bytes()) | 1);
            out.tools.push((
                if id.is_empty() { 0 } else { h128(id) },
                xxh3_64(strings.get(tu.name).as_bytes()),
                target,
            ));
        }
        out.rows.push(Row {
            key: strings.opt(crate::client::records::request_key(r)).map_or(0, h128),
            message: message_id.map_or(0, h128),
            model: xxh3_64(model.as_bytes()),
            speed: strings.opt(usage.speed).map_or(0, |s| xxh3_64(s.as_bytes()) | 1),
            slot: r.timestamp_ms.map_or(i64::MIN, |t| t.div_euclid(SLOT_MS) * SLOT_MS),
            usage,
            sidechain: r.has(crate::scan::record::F_SIDECHAIN),
            lane: Lane::of(request_id),
            tools: (start, out.tools.len() as u32 - start),
            rec: ri as u32,
        });
    }
    out
}

struct Group {
    file: u32,
    row: u32,
    all_sidechain: bool,
}

/// Interns names met by hash, reading the string once per distinct value.
struct Names {
    index: HashMap<u64, u32>,
    names: Vec<String>,
}

impl Names {
    fn new() -> Names {
        Names { index: HashMap::default(), names: Vec::new() }
    }
    fn get(&mut self, hash: u64, name: impl FnOnce() -> String) -> u32 {
        *self.index.entry(hash).or_insert_with(|| {
            self.names.push(name());
            (self.names.len() - 1) as u32
        })
    }
}

/// The requests of an estate: every assistant entry grouped by request key, each group's
/// counted entry chosen, and sidechain replays marked (the rules in the module doc).
struct Grouping {
    files: Vec<FileRows>,
    groups: Vec<Group>,
    /// Per file, per row: its group.
    group_of: Vec<Vec<u32>>,
    /// Per group: a sidechain replay, not counted.
    dropped: Vec<bool>,
}

fn group(scans: &[&Scan], report: &mut UsageReport) -> Grouping {
    let files: Vec<FileRows> = scans.par_iter().map(|s| file_rows(s)).collect();
    let mut groups: Vec<Group> = Vec::new();
    let mut by_key: HashMap<u128, u32> = HashMap::default();
    let mut main_chain_messages: HashSet<u128> = HashSet::default();
    let mut group_of: Vec<Vec<u32>> = Vec::with_capacity(files.len());

    for (fi, f) in files.iter().enumerate() {
        report.synthetic_entries += f.synthetic;
        report.malformed_usage_entries += f.malformed;
        report.assistant_entries += f.rows.len() as u64;
        let mut of_row = Vec::with_capacity(f.rows.len());
        for (ri, row) in f.rows.iter().enumerate() {
            if !row.sidechain && row.message != 0 {
                main_chain_messages.insert(row.message);
            }
            let existing = if row.key == 0 { None } else { by_key.get(&row.key).copied() };
            let gi = match existing {
                Some(gi) => {
                    let g = &mut groups[gi as usize];
                    if row.usage.output > files[g.file as usize].rows[g.row as usize].usage.output {
                        (g.file, g.row) = (fi as u32, ri as u32);
                    }
                    g.all_sidechain &= row.sidechain;
                    gi
                }
                None => {
                    groups.push(Group { file: fi as u32, row: ri as u32, all_sidechain: row.sidechain });
                    let gi = (groups.len() - 1) as u32;
                    if row.key != 0 {
                        by_key.insert(row.key, gi);
                    }
                    gi
                }
            };
            of_row.push(gi);
        }
        group_of.push(of_row);
    }

    // A group keeps the message id of the entry that opened it: all its entries share the key,
    // and a replay's key is its own new requestId.
    let opener: Vec<u128> = {
        let mut m = vec![0u128; groups.len()];
        let mut seen = vec![false; groups.len()];
        for (fi, rows) in group_of.iter().enumerate() {
            for (ri, &gi) in rows.iter().enumerate() {
                if !std::mem::replace(&mut seen[gi as usize], true) {
                    m[gi as usize] = files[fi].rows[ri].message;
                }
            }
        }
        m
    };
    let dropped: Vec<bool> = groups
        .iter()
        .zip(&opener)
        .map(|(g, &m)| g.all_sidechain && m != 0 && main_chain_messages.contains(&m))
        .collect();
    report.sidechain_replays = dropped.iter().filter(|d| **d).count() as u64;
    Grouping { files, groups, group_of, dropped }
}

impl Grouping {
    /// Every counted tool call, once: the distinct `tool_use` ids (a call without an id counts
    /// each time) of the entries of counted requests. `f` gets the file index, the entry's row,
    /// its group's counted entry (file index and row), the call's index among the entry's
    /// `tool_uses`, and the call's (id, name, target) hashes.
    fn each_counted_call(&self, mut f: impl FnMut(usize, &Row, (usize, &Row), usize, (u128, u64, u64))) {
        let mut seen_tool_ids: HashSet<u128> = HashSet::default();
        for (fi, file) in self.files.iter().enumerate() {
            for (row, &gi) in file.rows.iter().zip(&self.group_of[fi]) {
                if self.dropped[gi as usize] || row.tools.1 == 0 {
                    continue;
                }
                let g = &self.groups[gi as usize];
                let winner = &self.files[g.file as usize].rows[g.row as usize];
                let (start, len) = row.tools;
                for (k, &(id, name, target)) in file.tools[start as usize..(start + len) as usize].iter().enumerate() {
                    if id != 0 && !seen_tool_ids.insert(id) {
                        continue;
                    }
                    f(fi, row, (g.file as usize, winner), k, (id, name, target));
                }
            }
        }
    }
}

/// How many of `thresholds` a request's prompt (input + cache writes + cache reads) exceeds.
fn prompt_band(u: &Usage, thresholds: &[u64]) -> u8 {
    let prompt = u.input + u.cache_creation + u.cache_read;
    thresholds.iter().filter(|&&t| prompt > t).count().min(u8::MAX as usize) as u8
}

/// A request's cache writes split by TTL for pricing, (5-minute, 1-hour): writes without the
/// split count as 5-minute, and the 1-hour part never exceeds the total.
pub fn cache_writes(u: &Usage) -> (u64, u64) {
    let w1h =
        if u.cache_5m.is_some() || u.cache_1h.is_some() { u.cache_1h.unwrap_or(0).min(u.cache_creation) } else { 0 };
    (u.cache_creation - w1h, w1h)
}

/// One counted API request: the entry whose usage counts for it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct CountedRequest {
    /// Index of its file in the `scans` given.
    pub file: u32,
    /// Index of the counted entry in that file's scan.
    pub record: u32,
    /// How many of the caller's prompt thresholds its prompt exceeds.
    pub prompt_band: u8,
    pub lane: Lane,
}

/// Every counted request of the estate (the same ones [`aggregate`] sums), ordered by the
/// counted entry's time (entries without a timestamp last), then by file and line.
/// `prompt_thresholds` set [`CountedRequest::prompt_band`].
pub fn counted_requests(scans: &[&Scan], prompt_thresholds: &[u64]) -> (Vec<CountedRequest>, UsageReport) {
    let mut report = UsageReport::default();
    let g = group(scans, &mut report);
    (requests_of(&g, scans, prompt_thresholds), report)
}

/// [`counted_requests`] and [`counted_tool_calls`] from one grouping of the entries.
pub fn counted_requests_and_tool_calls(
    scans: &[&Scan],
    prompt_thresholds: &[u64],
) -> (Vec<CountedRequest>, Vec<CountedToolCall>) {
    let mut report = UsageReport::default();
    let g = group(scans, &mut report);
    (requests_of(&g, scans, prompt_thresholds), calls_of(&g, scans))
}

fn requests_of(g: &Grouping, scans: &[&Scan], prompt_thresholds: &[u64]) -> Vec<CountedRequest> {
    let mut out: Vec<CountedRequest> = g
        .groups
        .iter()
        .zip(&g.dropped)
        .filter(|(_, d)| !**d)
        .map(|(gr, _)| {
            let row = &g.files[gr.file as usize].rows[gr.row as usize];
            CountedRequest {
                file: gr.file,
                record: row.rec,
                prompt_band: prompt_band(&row.usage, prompt_thresholds),
                lane: row.lane,
            }
        })
        .collect();
    let time = |c: &CountedRequest| scans[c.file as usize].records[c.record as usize].timestamp_ms.unwrap_or(i64::MAX);
    out.sort_by_key(|c| (time(c), c.file, c.record));
    out
}

/// One counted tool call (as [`aggregate`] counts them): where its `tool_use` block is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct CountedToolCall {
    /// Index of its file in the `scans` given, and of the entry holding the call in that scan.
    pub file: u32,
    pub record: u32,
    /// Index of the call among the entry's `tool_uses`.
    pub call: u32,
    /// A `tool_result` for the call's id was written with `is_error: true`, in any of the scans
    /// (results are only seen where the scan kept them: every record in a full scan, records
    /// holding an error in [`crate::scan::Mode::UsageAndToolErrors`]).
    pub is_error: bool,
}

/// Every counted tool call of the estate (the ones [`aggregate`] counts per tool and target),
/// in file order, then in the order written.
pub fn counted_tool_calls(scans: &[&Scan]) -> Vec<CountedToolCall> {
    let mut report = UsageReport::default();
    let g = group(scans, &mut report);
    calls_of(&g, scans)
}

fn calls_of(g: &Grouping, scans: &[&Scan]) -> Vec<CountedToolCall> {
    let failed: HashSet<u128> = scans
        .par_iter()
        .flat_map_iter(|s| {
            s.tables
                .tool_results
                .iter()
                .zip(&s.tables.tool_result_errors)
                .filter(|(_, &e)| e)
                .map(|(&id, _)| h128(s.str(id)))
                .collect::<Vec<_>>()
        })
        .collect();
    let mut out = Vec::new();
    g.each_counted_call(|fi, row, _, k, (id, _, _)| {
        out.push(CountedToolCall {
            file: fi as u32,
            record: row.rec,
            call: k as u32,
            is_error: id != 0 && failed.contains(&id),
        });
    });
    out
}

/// Per record of one file: the record whose usage counts for the request it belongs to (by the
/// rules of this module), or `u32::MAX` for a record that is no counted assistant entry
/// (no usage, `<synthetic>`, a sidechain replay). A reader that shows requests by record (show,
/// timeline) takes each request's tokens from that record.
pub fn counted_entries(scan: &Scan) -> Vec<u32> {
    let mut report = UsageReport::default();
    let g = group(&[scan], &mut report);
    let mut out = vec![u32::MAX; scan.records.len()];
    let rows = &g.files[0].rows;
    for (row, &gi) in rows.iter().zip(&g.group_of[0]) {
        if g.dropped[gi as usize] {
            continue;
        }
        let counted = &g.groups[gi as usize];
        out[row.rec as usize] = rows[counted.row as usize].rec;
    }
    out
}

/// `scans` are in path order; `session_of_file[i]` and `subagent_file[i]` describe file i.
/// `prompt_thresholds` (any order) set the prompt bands of [`BucketKey::prompt_band`].
pub fn aggregate(
    scans: &[&Scan],
    session_of_file: &[u32],
    subagent_file: &[bool],
    prompt_thresholds: &[u64],
) -> UsageReport {
    let mut report = UsageReport::default();
    let Grouping { files, groups, group_of, dropped } = group(scans, &mut report);

    let mut models = Names::new();
    let mut speeds = Names::new();
    // The absent speed is always index 0.
    speeds.get(0, String::new);
    let mut bucket_index: HashMap<BucketKey, usize> = HashMap::default();
    let mut bucket_of = |report: &mut UsageReport,
                         models: &mut Names,
                         speeds: &mut Names,
                         fi: usize,
                         row: &Row,
                         winner: (usize, &Row)| {
        let model = models.get(row.model, || {
            scans[fi].tables.strings.opt(scans[fi].records[row.rec as usize].model).unwrap_or("").to_string()
        });
        // Lane, prompt band and speed are the counted entry's: a request has one of each.
        let (wf, w) = winner;
        let speed = speeds.get(w.speed, || scans[wf].tables.strings.opt(w.usage.speed).unwrap_or("").to_string());
        let key = BucketKey {
            session: session_of_file[fi],
            slot: row.slot,
            model,
            subagent: subagent_file[fi],
            lane: w.lane,
            prompt_band: prompt_band(&w.usage, prompt_thresholds),
            speed,
        };
        *bucket_index.entry(key).or_insert_with(|| {
            report.buckets.push((key, Tokens::default()));
            report.buckets.len() - 1
        })
    };

    let mut group_entries = vec![0u64; groups.len()];
    for rows in &group_of {
        for &gi in rows {
            group_entries[gi as usize] += 1;
        }
    }
    for ((g, _), &entries) in groups.iter().zip(&dropped).zip(&group_entries).filter(|((_, d), _)| !**d) {
        let row = &files[g.file as usize].rows[g.row as usize];
        let u = row.usage;
        let b = bucket_of(&mut report, &mut models, &mut speeds, g.file as usize, row, (g.file as usize, row));
        let t = &mut report.buckets[b].1;
        let (w5m, w1h) = cache_writes(&u);
        t.requests += 1;
        t.input += u.input;
        t.cache_creation += u.cache_creation;
        t.cache_1h += w1h;
        t.cache_5m += w5m;
        t.cache_read += u.cache_read;
        t.output += u.output;
        t.entries += entries;
    }

    let grouping = Grouping { files, groups, group_of, dropped };
    let mut tool_names = Names::new();
    let mut tool_counts: HashMap<(u32, u32), u64> = HashMap::default();
    let mut targets = Names::new();
    let mut target_counts: HashMap<(u32, u32, u32), u64> = HashMap::default();
    grouping.each_counted_call(|fi, row, winner, k, (_, name, target)| {
        let b = bucket_of(&mut report, &mut models, &mut speeds, fi, row, winner) as u32;
        let scan = scans[fi];
        let tool_use = || scan.tables.tool_uses(&scan.records[row.rec as usize])[k];
        let name = tool_names.get(name, || scan.str(tool_use().name).to_string());
        *tool_counts.entry((b, name)).or_insert(0) += 1;
        let target = if target == 0 {
            NO_TARGET
        } else {
            targets.get(target, || scan.tables.strings.opt(tool_use().target).unwrap_or("").to_string())
        };
        *target_counts.entry((b, name, target)).or_insert(0) += 1;
    });
    report.models = models.names;
    report.speeds = speeds.names;
    report.tool_names = tool_names.names;

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
    report.tool_targets.targets = targets.names;
    report.tool_targets.counts =
        target_counts.into_iter().map(|((b, n, t), c)| (new_index[b as usize], n, t, c)).collect();
    report.tool_targets.counts.sort_unstable();
    report
}

#[cfg(test)]
mod tests;
