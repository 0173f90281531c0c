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

/// How finely [`aggregate`] splits the requests into buckets. Every bucket is of one model,
/// speed, prompt band and lane, subagent or not, within one UTC day (what pricing needs);
/// beyond that:
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Detail {
    /// by session and by [`SLOT_MS`] slot: what a report by session, project, model or local
    /// day needs;
    Slots,
    /// nothing more: [`BucketKey::session`] is [`ALL_SESSIONS`] and the slot a UTC day's start,
    /// a fraction of the buckets, for totals over the whole estate.
    Days,
}

/// [`BucketKey::session`] of a bucket that holds every session's requests ([`Detail::Days`]).
pub const ALL_SESSIONS: u32 = u32::MAX;

const DAY_MS: i64 = 86_400_000;

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

impl std::ops::AddAssign<&Tokens> for Tokens {
    /// Adds another part's sums (the parallel parts of `aggregate` are merged this way).
    fn add_assign(&mut self, t: &Tokens) {
        self.requests += t.requests;
        self.input += t.input;
        self.cache_creation += t.cache_creation;
        self.cache_5m += t.cache_5m;
        self.cache_1h += t.cache_1h;
        self.cache_read += t.cache_read;
        self.output += t.output;
        self.entries += t.entries;
    }
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
    /// Assistant entries grouped into it.
    entries: u64,
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
    let rows: usize = files.iter().map(|f| f.rows.len()).sum();
    let mut by_key: HashMap<u128, u32> = HashMap::with_capacity_and_hasher(rows, Default::default());
    let mut main_chain_messages: HashSet<u128> = HashSet::with_capacity_and_hasher(rows, Default::default());
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
                    g.entries += 1;
                    gi
                }
                None => {
                    groups.push(Group { file: fi as u32, row: ri as u32, all_sidechain: row.sidechain, entries: 1 });
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
    /// Per file, per entry of its `tools`: whether the call counts. Every counted tool call once:
    /// the distinct `tool_use` ids (a call without an id counts each time) of the entries of
    /// counted requests, each where it is first met, files in path order.
    fn counted_calls(&self) -> Vec<Vec<bool>> {
        let calls: usize = self.files.iter().map(|f| f.tools.len()).sum();
        let mut seen_tool_ids: HashSet<u128> = HashSet::with_capacity_and_hasher(calls, Default::default());
        let mut out: Vec<Vec<bool>> = self.files.iter().map(|f| vec![false; f.tools.len()]).collect();
        for (fi, file) in self.files.iter().enumerate() {
            for (row, &gi) in file.rows.iter().zip(&self.group_of[fi]) {
                if self.dropped[gi as usize] || row.tools.1 == 0 {
                    continue;
                }
                let (start, len) = (row.tools.0 as usize, row.tools.1 as usize);
                for (j, &(id, _, _)) in file.tools[start..start + len].iter().enumerate() {
                    out[fi][start + j] = id == 0 || seen_tool_ids.insert(id);
                }
            }
        }
        out
    }

    /// Every counted tool call ([`Grouping::counted_calls`]), in file order: `f` gets the file
    /// index, the entry's row, the call's index among the entry's `tool_uses`, and the call's
    /// (id, name, target) hashes.
    fn each_counted_call(&self, mut f: impl FnMut(usize, &Row, usize, (u128, u64, u64))) {
        let counted = self.counted_calls();
        for (fi, file) in self.files.iter().enumerate() {
            for row in &file.rows {
                let (start, len) = (row.tools.0 as usize, row.tools.1 as usize);
                let calls = file.tools[start..start + len].iter().zip(&counted[fi][start..start + len]);
                for (k, (&call, _)) in calls.enumerate().filter(|(_, (_, c))| **c) {
                    f(fi, row, k, call);
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
    rayon::join(|| requests_of(&g, scans, prompt_thresholds), || calls_of(&g, scans))
}

fn requests_of(g: &Grouping, scans: &[&Scan], prompt_thresholds: &[u64]) -> Vec<CountedRequest> {
    // Sorted on keys read once each (a record looked up per comparison costs more than the sort).
    let mut keyed: Vec<((i64, u32, u32), CountedRequest)> = g
        .groups
        .iter()
        .zip(&g.dropped)
        .filter(|(_, d)| !**d)
        .map(|(gr, _)| {
            let row = &g.files[gr.file as usize].rows[gr.row as usize];
            let time = scans[gr.file as usize].records[row.rec as usize].timestamp_ms.unwrap_or(i64::MAX);
            let c = CountedRequest {
                file: gr.file,
                record: row.rec,
                prompt_band: prompt_band(&row.usage, prompt_thresholds),
                lane: row.lane,
            };
            ((time, gr.file, row.rec), c)
        })
        .collect();
    // (keys are unique: one counted entry per record)
    keyed.sort_unstable_by_key(|(k, _)| *k);
    keyed.into_iter().map(|(_, c)| c).collect()
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
    g.each_counted_call(|fi, row, k, (id, _, _)| {
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

/// Whether [`aggregate`] also counts tool calls by target ([`UsageReport::tool_targets`]), which
/// only `stats --tools` reads: about a third of the aggregation's work goes to it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Targets {
    Count,
    Skip,
}

/// A bucket key while the buckets are summed in parallel: models and speeds by hash, since their
/// indices (first met, in the order the rules walk requests and then calls) are known only once
/// every part is done.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
struct HashedKey {
    session: u32,
    slot: i64,
    model: u64,
    subagent: bool,
    lane: Lane,
    prompt_band: u8,
    speed: u64,
}

/// Where a name can be read back: file index, record index, and the call among the record's
/// `tool_uses` (0 when not a call).
type Origin = (u32, u32, u32);

/// Distinct hashes in the order first met in one part, each with where its name can be read.
/// Parts walk contiguous stretches of one sequence, so the whole sequence's first-met order is
/// the parts' lists joined in part order, each dropping what an earlier part already met.
#[derive(Default)]
struct FirstMet {
    seen: HashSet<u64>,
    order: Vec<(u64, Origin)>,
}

impl FirstMet {
    fn note(&mut self, hash: u64, at: Origin) {
        if self.seen.insert(hash) {
            self.order.push((hash, at));
        }
    }
}

/// One index per distinct hash, in first-met order over `parts` (in order), after `first`.
fn indices<'a>(
    first: &[(u64, String)],
    parts: impl Iterator<Item = &'a FirstMet>,
    name: impl Fn(Origin) -> String,
) -> (HashMap<u64, u32>, Vec<String>) {
    let mut index: HashMap<u64, u32> = HashMap::default();
    let mut names = Vec::new();
    for (h, n) in first {
        index.insert(*h, names.len() as u32);
        names.push(n.clone());
    }
    for part in parts {
        for &(h, at) in &part.order {
            index.entry(h).or_insert_with(|| {
                names.push(name(at));
                (names.len() - 1) as u32
            });
        }
    }
    (index, names)
}

/// What one part of the walk sums: token buckets and, per bucket, tool calls by name and by
/// (name, target hash or 0).
#[derive(Default)]
struct Part {
    buckets: HashMap<HashedKey, Tokens>,
    tools: HashMap<(HashedKey, u64), u64>,
    targets: HashMap<(HashedKey, u64, u64), u64>,
    models: FirstMet,
    speeds: FirstMet,
    tool_names: FirstMet,
    target_names: FirstMet,
}

/// Contiguous ranges of `0..weights.len()` of about equal total weight, a few per worker so that
/// a worker slowed by another process does not hold the rest back.
fn ranges(weights: &[usize]) -> Vec<std::ops::Range<usize>> {
    let parts = (rayon::current_num_threads() * 4).max(1);
    let per = (weights.iter().sum::<usize>() / parts).max(1);
    let (mut out, mut start, mut acc) = (Vec::new(), 0, 0);
    for (i, w) in weights.iter().enumerate() {
        acc += w;
        if acc >= per {
            out.push(start..i + 1);
            (start, acc) = (i + 1, 0);
        }
    }
    if start < weights.len() {
        out.push(start..weights.len());
    }
    out
}

/// `scans` are in path order; `session_of_file[i]` and `subagent_file[i]` describe file i.
/// `prompt_thresholds` (any order) set the prompt bands of [`BucketKey::prompt_band`].
///
/// After the grouping, requests and calls are summed in parallel parts (contiguous stretches of
/// the groups, then of the files) and merged: sums of whole numbers do not depend on the order,
/// and names get the indices the sequential walk would give them (see [`FirstMet`]), so the report
/// is the same whatever the number of parts.
pub fn aggregate(
    scans: &[&Scan],
    session_of_file: &[u32],
    subagent_file: &[bool],
    prompt_thresholds: &[u64],
    targets: Targets,
    detail: Detail,
) -> UsageReport {
    let mut report = UsageReport::default();
    let g = group(scans, &mut report);
    let key_of = |fi: usize, row: &Row, w: &Row| HashedKey {
        session: match detail {
            Detail::Slots => session_of_file[fi],
            Detail::Days => ALL_SESSIONS,
        },
        slot: match detail {
            Detail::Days if row.slot != i64::MIN => row.slot.div_euclid(DAY_MS) * DAY_MS,
            _ => row.slot,
        },
        model: row.model,
        subagent: subagent_file[fi],
        // Lane, prompt band and speed are the counted entry's: a request has one of each.
        lane: w.lane,
        prompt_band: prompt_band(&w.usage, prompt_thresholds),
        speed: w.speed,
    };

    // Requests: each counted group's winning entry, summed into its bucket.
    let group_ranges = ranges(&vec![1; g.groups.len()]);
    let requests: Vec<Part> = group_ranges
        .par_iter()
        .map(|r| {
            let mut part = Part::default();
            for (gr, _) in g.groups[r.clone()].iter().zip(&g.dropped[r.clone()]).filter(|(_, d)| !**d) {
                let row = &g.files[gr.file as usize].rows[gr.row as usize];
                part.models.note(row.model, (gr.file, row.rec, 0));
                part.speeds.note(row.speed, (gr.file, row.rec, 0));
                let u = row.usage;
                let t = part.buckets.entry(key_of(gr.file as usize, row, row)).or_default();
                let (w5m, w1h) = cache_writes(&u);
                t.requests += 1;
                t.input += u.input;
                t.cache_creation += u.cache_creation;
                t.cache_1h += w1h;
                t.cache_5m += w5m;
                t.cache_read += u.cache_read;
                t.output += u.output;
                t.entries += gr.entries;
            }
            part
        })
        .collect();

    // Calls: which ones count is decided first, in order (a tool_use id counts once, where it is
    // first met); then each file's counted calls are summed in parallel.
    let counted = g.counted_calls();
    let file_ranges = ranges(&g.files.iter().map(|f| f.rows.len() + 1).collect::<Vec<_>>());
    let calls: Vec<Part> = file_ranges
        .par_iter()
        .map(|r| {
            let mut part = Part::default();
            for fi in r.clone() {
                let file = &g.files[fi];
                for (row, &gi) in file.rows.iter().zip(&g.group_of[fi]) {
                    let (start, len) = (row.tools.0 as usize, row.tools.1 as usize);
                    let counted = &counted[fi][start..start + len];
                    if !counted.contains(&true) {
                        continue;
                    }
                    let w_at = &g.groups[gi as usize];
                    let w = &g.files[w_at.file as usize].rows[w_at.row as usize];
                    part.models.note(row.model, (fi as u32, row.rec, 0));
                    part.speeds.note(w.speed, (w_at.file, w.rec, 0));
                    let key = key_of(fi, row, w);
                    part.buckets.entry(key).or_default();
                    for (k, _) in counted.iter().enumerate().filter(|(_, c)| **c) {
                        let (_, name, target) = file.tools[start + k];
                        let at = (fi as u32, row.rec, k as u32);
                        part.tool_names.note(name, at);
                        *part.tools.entry((key, name)).or_insert(0) += 1;
                        if targets == Targets::Count {
                            if target != 0 {
                                part.target_names.note(target, at);
                            }
                            *part.targets.entry((key, name, target)).or_insert(0) += 1;
                        }
                    }
                }
            }
            part
        })
        .collect();

    let record = |(fi, rec, _): Origin| (scans[fi as usize], &scans[fi as usize].records[rec as usize]);
    let tool_use = |at: Origin| {
        let (scan, r) = record(at);
        (scan, scan.tables.tool_uses(r)[at.2 as usize])
    };
    let (model_index, models) = indices(&[], requests.iter().chain(&calls).map(|p| &p.models), |at| {
        let (scan, r) = record(at);
        scan.tables.strings.opt(r.model).unwrap_or("").to_string()
    });
    // The absent speed is always index 0.
    let (speed_index, speeds) =
        indices(&[(0, String::new())], requests.iter().chain(&calls).map(|p| &p.speeds), |at| {
            let (scan, r) = record(at);
            scan.tables.strings.opt(r.usage.and_then(|u| u.speed)).unwrap_or("").to_string()
        });
    let (name_index, tool_names) = indices(&[], calls.iter().map(|p| &p.tool_names), |at| {
        let (scan, t) = tool_use(at);
        scan.str(t.name).to_string()
    });
    let (target_index, target_names) = indices(&[], calls.iter().map(|p| &p.target_names), |at| {
        let (scan, t) = tool_use(at);
        scan.tables.strings.opt(t.target).unwrap_or("").to_string()
    });

    // Buckets in key order; tools by (bucket, name), targets by (bucket, name, target).
    let mut buckets: HashMap<HashedKey, Tokens> = HashMap::default();
    for part in requests.iter().chain(&calls) {
        for (k, t) in &part.buckets {
            *buckets.entry(*k).or_default() += t;
        }
    }
    let mut keyed: Vec<(BucketKey, HashedKey, Tokens)> = buckets
        .into_iter()
        .map(|(h, t)| {
            let key = BucketKey {
                session: h.session,
                slot: h.slot,
                model: model_index[&h.model],
                subagent: h.subagent,
                lane: h.lane,
                prompt_band: h.prompt_band,
                speed: speed_index[&h.speed],
            };
            (key, h, t)
        })
        .collect();
    keyed.sort_unstable_by_key(|b| b.0);
    let bucket_index: HashMap<HashedKey, u32> = keyed.iter().enumerate().map(|(i, b)| (b.1, i as u32)).collect();
    report.buckets = keyed.into_iter().map(|(k, _, t)| (k, t)).collect();
    let mut tools: HashMap<(u32, u32), u64> = HashMap::default();
    let mut target_counts: HashMap<(u32, u32, u32), u64> = HashMap::default();
    for part in &calls {
        for ((k, name), c) in &part.tools {
            *tools.entry((bucket_index[k], name_index[name])).or_insert(0) += c;
        }
        for ((k, name, target), c) in &part.targets {
            let t = if *target == 0 { NO_TARGET } else { target_index[target] };
            *target_counts.entry((bucket_index[k], name_index[name], t)).or_insert(0) += c;
        }
    }
    report.models = models;
    report.speeds = speeds;
    report.tool_names = tool_names;
    report.tools = tools.into_iter().map(|((b, n), c)| (b, n, c)).collect();
    report.tools.sort_unstable();
    report.tool_targets.targets = target_names;
    report.tool_targets.counts = target_counts.into_iter().map(|((b, n, t), c)| (b, n, t, c)).collect();
    report.tool_targets.counts.sort_unstable();
    report
}

#[cfg(test)]
mod tests;
