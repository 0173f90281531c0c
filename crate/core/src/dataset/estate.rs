//! The `requests` and `tool_calls` tables of an estate scan, as columns, split by UTC day: one row
//! per request and per tool call `stats` counts ([`crate::read::usage`]'s grouping, dedupe and
//! targets), in the order a part file holds them. Pricing is not decided here: the caller owns the
//! price table, prices each [`PriceKey`] of [`RequestRows::pricing`] and each request's tokens,
//! and the cost columns ([`COST_COLUMNS`]) are made from that ([`Pricing::cost_columns`]).

use super::schema::Table;
use super::{TextBuilder, Values};
use crate::estate::EstateScan;
use crate::read::usage::{self, CountedRequest, CountedToolCall};
use crate::scan::Scan;
use std::cmp::Ordering;

/// The columns of `requests` the caller adds: what the price table says of each request.
pub const COST_COLUMNS: [&str; 6] = ["cost_usd", "priced", "price_estimated", "priced_as", "fast", "long_context"];

/// One table's rows: columns (by name, every row) and, per UTC day, the rows of that day in
/// the order they are written (by timestamp, a missing one as 0, then by the unique key in
/// UTF-16 order, as the export's merge of older rows orders them).
pub struct TableRows {
    pub table: Table,
    pub columns: Vec<(String, Values)>,
    /// `YYYY-MM-DD` (or `unknown` for rows without a timestamp), ascending, with their rows.
    pub days: Vec<(String, Vec<u32>)>,
}

/// What the price table needs of each request, in row order.
#[derive(Default)]
pub struct Pricing {
    /// Index of the request's session in the scan's sessions.
    pub session: Vec<u32>,
    /// The models and speeds (`usage.speed` as written, None when absent) that price keys name.
    pub models: Vec<String>,
    pub speeds: Vec<Option<String>>,
    /// ms since the epoch, NaN when the entry has none.
    pub time_ms: Vec<f64>,
    pub input: Vec<f64>,
    pub output: Vec<f64>,
    pub cache_write_5m: Vec<f64>,
    pub cache_write_1h: Vec<f64>,
    pub cache_read: Vec<f64>,
    /// Index of the request's price key in `keys`.
    pub key: Vec<u32>,
    /// Every price key the requests have, in the order first met.
    pub keys: Vec<PriceKey>,
}

/// What decides a request's price besides its tokens: its model, speed and prompt band, and its
/// UTC day (the price table's rates change from one day to the next at most). The requests that
/// share one are priced alike: the price table is asked once per key, not once per request.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct PriceKey {
    /// Index in [`Pricing::models`] and [`Pricing::speeds`].
    pub model: u32,
    pub speed: u32,
    pub prompt_band: u8,
    /// The time of the first request of the key (ms, NaN when it has none): any time of the
    /// day prices alike.
    pub time_ms: f64,
}

/// How the price table prices each [`PriceKey`] (one value per key), beside each request's cost.
pub struct KeyPricing {
    pub estimated: Vec<u8>,
    pub fast: Vec<u8>,
    pub long_context: Vec<u8>,
    /// The table's model whose rates were used; None when unpriced.
    pub priced_as: Vec<Option<String>>,
}

/// Each session's requests, their cost and the first one's time, for the sessions that have
/// requests (ascending session index).
#[derive(Debug, Default, PartialEq)]
pub struct SessionSums {
    pub session: Vec<u32>,
    pub requests: Vec<u32>,
    /// Summed in row order; an unpriced request adds nothing.
    pub cost: Vec<f64>,
    /// The earliest request's time (ms); infinity when none has one.
    pub first_ms: Vec<f64>,
}

impl Pricing {
    /// The [`COST_COLUMNS`] of the requests: `cost` per request (NaN: unpriced; `priced` says
    /// whether it is a number), the others from its key's `per_key`.
    pub fn cost_columns(&self, cost: Vec<f64>, per_key: &KeyPricing) -> Result<Vec<(String, Values)>, String> {
        let n = self.key.len();
        let keys = self.keys.len();
        if cost.len() != n {
            return Err(format!("{} costs for {n} requests", cost.len()));
        }
        let lens = [per_key.estimated.len(), per_key.fast.len(), per_key.long_context.len(), per_key.priced_as.len()];
        if lens.iter().any(|&l| l != keys) {
            return Err(format!("pricing of {lens:?} keys for {keys} keys"));
        }
        let of_key = |v: &[u8]| Values::Flags(self.key.iter().map(|&k| v[k as usize]).collect());
        let mut priced_as = TextBuilder::with_capacity(n);
        for &k in &self.key {
            priced_as.push(per_key.priced_as[k as usize].as_deref());
        }
        let priced = Values::Flags(cost.iter().map(|c| !c.is_nan() as u8).collect());
        Ok(vec![
            ("cost_usd".to_string(), Values::Numbers(cost)),
            ("priced".to_string(), priced),
            ("price_estimated".to_string(), of_key(&per_key.estimated)),
            ("priced_as".to_string(), Values::Text(priced_as.finish())),
            ("fast".to_string(), of_key(&per_key.fast)),
            ("long_context".to_string(), of_key(&per_key.long_context)),
        ])
    }

    /// [`SessionSums`] of the requests, `cost` being each request's (as for `cost_columns`).
    pub fn session_sums(&self, cost: &[f64]) -> SessionSums {
        let sessions = self.session.iter().map(|&s| s as usize + 1).max().unwrap_or(0);
        let (mut requests, mut sum, mut first) =
            (vec![0u32; sessions], vec![0f64; sessions], vec![f64::INFINITY; sessions]);
        for (i, &s) in self.session.iter().enumerate() {
            let s = s as usize;
            requests[s] += 1;
            if let Some(&c) = cost.get(i).filter(|c| !c.is_nan()) {
                sum[s] += c;
            }
            let at = self.time_ms[i];
            if at.is_finite() && at < first[s] {
                first[s] = at;
            }
        }
        let mut out = SessionSums::default();
        for s in (0..sessions).filter(|&s| requests[s] > 0) {
            out.session.push(s as u32);
            out.requests.push(requests[s]);
            out.cost.push(sum[s]);
            out.first_ms.push(first[s]);
        }
        out
    }
}

pub struct RequestRows {
    pub rows: TableRows,
    pub pricing: Pricing,
}

/// The UTC day of `ms` as `YYYY-MM-DD`, `unknown` for none.
pub fn utc_day(ms: Option<i64>) -> String {
    let Some(ms) = ms else { return "unknown".to_string() };
    let (y, m, d) = civil_from_days(ms.div_euclid(86_400_000));
    format!("{y:04}-{m:02}-{d:02}")
}

/// The proleptic Gregorian date of a day number since 1970-01-01.
fn civil_from_days(z: i64) -> (i64, i64, i64) {
    let z = z + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z.rem_euclid(146_097);
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = doy - (153 * mp + 2) / 5 + 1;
    let m = if mp < 10 { mp + 3 } else { mp - 9 };
    (yoe + era * 400 + (m <= 2) as i64, m, d)
}

/// JavaScript's string order (UTF-16 code units), the order the export's merge sorts keys in.
fn utf16_cmp(a: &str, b: &str) -> Ordering {
    if a.is_ascii() && b.is_ascii() {
        return a.cmp(b);
    }
    a.encode_utf16().cmp(b.encode_utf16())
}

/// Rows by day, each day's rows by (timestamp or 0, key of the row).
fn days_of<'a>(times: &[Option<i64>], key: impl Fn(usize) -> &'a str) -> Vec<(String, Vec<u32>)> {
    let mut by_day: std::collections::BTreeMap<Option<i64>, Vec<u32>> = Default::default();
    for (i, t) in times.iter().enumerate() {
        by_day.entry(t.map(|t| t.div_euclid(86_400_000))).or_default().push(i as u32);
    }
    let mut out: Vec<(String, Vec<u32>)> = by_day
        .into_iter()
        .map(|(day, mut rows)| {
            rows.sort_by(|&a, &b| {
                let (a, b) = (a as usize, b as usize);
                times[a].unwrap_or(0).cmp(&times[b].unwrap_or(0)).then_with(|| utf16_cmp(key(a), key(b)))
            });
            (day.map_or_else(|| "unknown".to_string(), |d| utc_day(Some(d * 86_400_000))), rows)
        })
        .collect();
    out.sort_by(|a, b| a.0.cmp(&b.0));
    out
}

fn numbers(v: impl Iterator<Item = f64>) -> Values {
    Values::Numbers(v.collect())
}

fn stamp(t: Option<i64>) -> f64 {
    t.map_or(f64::NAN, |t| t as f64)
}

/// Text as written; an empty value counts as none (a request id or message id of "").
fn nonempty(s: Option<&str>) -> Option<&str> {
    s.filter(|s| !s.is_empty())
}

/// A text column of `n` values, each `value`.
fn repeated(value: &str, n: usize) -> Values {
    Values::Text(TextBuilder::repeated(value, n))
}

/// The `requests` rows of `reqs` (as [`usage::counted_requests`] gives them) of estate `e`
/// whose file scans are `scans`, written by `machine`, without the [`COST_COLUMNS`].
pub fn request_rows(e: &EstateScan, scans: &[&Scan], reqs: &[CountedRequest], machine: &str) -> RequestRows {
    let n = reqs.len();
    let rec = |c: &CountedRequest| {
        let s = scans[c.file as usize];
        (s, &s.records[c.record as usize])
    };
    let mut p = Pricing::default();
    let mut model_index: rustc_hash::FxHashMap<&str, u32> = Default::default();
    let mut key_index: rustc_hash::FxHashMap<(u32, u32, u8, Option<i64>), u32> = Default::default();
    let text_column = || TextBuilder::with_capacity(n);
    let unique = || TextBuilder::for_unique(n);
    let (mut project, mut session_id, mut agent_id) = (text_column(), text_column(), text_column());
    let (mut key, mut request_id, mut message_id) = (unique(), unique(), unique());
    let (mut model, mut tier, mut speed) = (text_column(), text_column(), text_column());
    let (mut times, mut creation) = (Vec::with_capacity(n), Vec::with_capacity(n));
    for c in reqs {
        let (s, r) = rec(c);
        let text = |x| s.tables.strings.opt(x);
        let file = &e.files[c.file as usize];
        let si = e.session_of_file[c.file as usize];
        let session = &e.sessions[si as usize];
        let u = r.usage.unwrap_or_default();
        let (w5m, w1h) = usage::cache_writes(&u);
        let rid = nonempty(text(r.request_id));
        let mid = nonempty(text(r.message_id));
        match rid.or(mid) {
            Some(k) => key.push(Some(k)),
            None => key.push(Some(&format!("{}:{}", file.path.to_string_lossy(), r.line))),
        }
        project.push(Some(&session.project));
        session_id.push(Some(&session.session_id));
        agent_id.push(file.agent_id.as_deref());
        request_id.push(rid);
        message_id.push(mid);
        let m = text(r.model).unwrap_or("");
        let mi = match model_index.get(m) {
            Some(&i) => i,
            None => {
                let i = model_index.len() as u32;
                model_index.insert(m, i);
                p.models.push(m.to_string());
                i
            }
        };
        model.push(Some(m));
        p.session.push(si);
        let sp = text(u.speed);
        let speed_at = match p.speeds.iter().position(|x| x.as_deref() == sp) {
            Some(i) => i as u32,
            None => {
                p.speeds.push(sp.map(str::to_string));
                (p.speeds.len() - 1) as u32
            }
        };
        speed.push(text(u.speed));
        tier.push(text(u.service_tier));
        times.push(r.timestamp_ms);
        p.time_ms.push(stamp(r.timestamp_ms));
        p.input.push(u.input as f64);
        p.output.push(u.output as f64);
        creation.push(u.cache_creation as f64);
        p.cache_read.push(u.cache_read as f64);
        p.cache_write_5m.push(w5m as f64);
        p.cache_write_1h.push(w1h as f64);
        let day = r.timestamp_ms.map(|t| t.div_euclid(86_400_000));
        let next = p.keys.len() as u32;
        let k = *key_index.entry((mi, speed_at, c.prompt_band, day)).or_insert_with(|| {
            let time_ms = stamp(r.timestamp_ms);
            p.keys.push(PriceKey { model: mi, speed: speed_at, prompt_band: c.prompt_band, time_ms });
            next
        });
        p.key.push(k);
    }
    let key = key.finish();
    let days = days_of(&times, |i| key.get(i).unwrap_or(""));
    let text = |b: TextBuilder| Values::Text(b.finish());
    let columns = vec![
        ("machine".to_string(), repeated(machine, n)),
        ("project".to_string(), text(project)),
        ("session_id".to_string(), text(session_id)),
        ("agent_id".to_string(), text(agent_id)),
        ("request_key".to_string(), Values::Text(key)),
        ("request_id".to_string(), text(request_id)),
        ("message_id".to_string(), text(message_id)),
        ("model".to_string(), text(model)),
        ("speed".to_string(), text(speed)),
        ("service_tier".to_string(), text(tier)),
        ("timestamp".to_string(), numbers(times.iter().map(|&t| stamp(t)))),
        ("input_tokens".to_string(), Values::Numbers(p.input.clone())),
        ("output_tokens".to_string(), Values::Numbers(p.output.clone())),
        ("cache_creation_input_tokens".to_string(), Values::Numbers(creation)),
        ("cache_read_input_tokens".to_string(), Values::Numbers(p.cache_read.clone())),
        ("cache_write_5m_tokens".to_string(), Values::Numbers(p.cache_write_5m.clone())),
        ("cache_write_1h_tokens".to_string(), Values::Numbers(p.cache_write_1h.clone())),
    ];
    RequestRows { rows: TableRows { table: Table::Requests, columns, days }, pricing: p }
}

/// The `requests` and `tool_calls` rows of estate `e`, built side by side on the core's pool
/// (neither needs the other): [`request_rows`] of `reqs` and [`tool_call_rows`] of `calls`.
pub fn table_rows(
    e: &EstateScan,
    scans: &[&Scan],
    reqs: &[CountedRequest],
    calls: &[CountedToolCall],
    machine: &str,
) -> (RequestRows, TableRows) {
    rayon::join(|| request_rows(e, scans, reqs, machine), || tool_call_rows(e, scans, calls, machine))
}

/// The `tool_calls` rows of `calls` (as [`usage::counted_tool_calls`] gives them).
pub fn tool_call_rows(e: &EstateScan, scans: &[&Scan], calls: &[CountedToolCall], machine: &str) -> TableRows {
    let n = calls.len();
    let text_column = || TextBuilder::with_capacity(n);
    let (mut project, mut session_id, mut agent_id) = (text_column(), text_column(), text_column());
    let (mut ids, mut model, mut tool, mut target) =
        (TextBuilder::for_unique(n), text_column(), text_column(), text_column());
    let (mut times, mut error) = (Vec::with_capacity(n), Vec::with_capacity(n));
    let mut idless: rustc_hash::FxHashMap<String, u32> = Default::default();
    for c in calls {
        let s = scans[c.file as usize];
        let r = &s.records[c.record as usize];
        let u = s.tables.tool_uses(r)[c.call as usize];
        let file = &e.files[c.file as usize];
        let session = &e.sessions[e.session_of_file[c.file as usize] as usize];
        let name = s.str(u.name);
        let id = s.str(u.id);
        if id.is_empty() {
            // A call written without an id is still one call: its session, time, tool and rank
            // among such calls name it, the same on every run (a transcript only grows).
            let time = r.timestamp_ms.map_or_else(|| "NaN".to_string(), |t| t.to_string());
            let place = format!("{}:{time}:{name}", session.session_id);
            let rank = idless.entry(place.clone()).or_insert(0);
            *rank += 1;
            ids.push(Some(&format!("{place}:{}", *rank - 1)));
        } else {
            ids.push(Some(id));
        }
        project.push(Some(&session.project));
        session_id.push(Some(&session.session_id));
        agent_id.push(file.agent_id.as_deref());
        times.push(r.timestamp_ms);
        model.push(Some(s.tables.strings.opt(r.model).unwrap_or("")));
        tool.push(Some(name));
        target.push(s.tables.strings.opt(u.target));
        error.push(c.is_error as u8);
    }
    let ids = ids.finish();
    let days = days_of(&times, |i| ids.get(i).unwrap_or(""));
    let text = |b: TextBuilder| Values::Text(b.finish());
    let columns = vec![
        ("machine".to_string(), repeated(machine, n)),
        ("project".to_string(), text(project)),
        ("session_id".to_string(), text(session_id)),
        ("agent_id".to_string(), text(agent_id)),
        ("tool_use_id".to_string(), Values::Text(ids)),
        ("timestamp".to_string(), numbers(times.iter().map(|&t| stamp(t)))),
        ("model".to_string(), text(model)),
        ("tool".to_string(), text(tool)),
        ("target".to_string(), text(target)),
        ("is_error".to_string(), Values::Flags(error)),
    ];
    TableRows { table: Table::ToolCalls, columns, days }
}

impl TableRows {
    /// The rows of `day` (every column, in the day's order), or None when the day has none.
    pub fn day(&self, day: &str) -> Option<Vec<(String, Values)>> {
        let (_, rows) = self.days.iter().find(|(d, _)| d == day)?;
        Some(self.columns.iter().map(|(name, v)| (name.clone(), v.gather(rows))).collect())
    }

    /// Every day's file, made in parallel, in the order of [`TableRows::days`].
    pub fn encode_days(&self) -> Result<Vec<Vec<u8>>, crate::failure::Failure> {
        use rayon::prelude::*;
        self.days.par_iter().map(|(_, rows)| super::encode_rows(self.table, &self.columns, Some(rows))).collect()
    }

    /// Adds (or replaces) a column given for every row. Text joined by NUL is split once here,
    /// so that a day's rows are picked from it without splitting it again for every day.
    pub fn set_column(&mut self, name: String, values: Values) -> Result<(), String> {
        let values = values.into_text()?;
        match self.columns.iter_mut().find(|(n, _)| *n == name) {
            Some(c) => c.1 = values,
            None => self.columns.push((name, values)),
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::estate::{EstateFile, FileKind, Session};
    use crate::scan::{scan_bytes, Mode};

    fn entry(req: Option<&str>, msg: &str, at: &str, out: u64, tool: Option<&str>) -> String {
        let req = req.map_or(String::new(), |r| format!(r#","requestId":"{r}""#));
        let content = tool.map_or(r#"[{"type":"text","text":"hi"}]"#.to_string(), |id| {
            format!(r#"[{{"type":"tool_use","id":"{id}","name":"Bash","input":{{"command":"ls -la"}}}}]"#)
        });
        format!(
            r#"{{"type":"assistant","timestamp":"{at}","message":{{"id":"{msg}","model":"claude-sonnet-4-5","content":{content},"usage":{{"input_tokens":3,"cache_creation_input_tokens":10,"cache_read_input_tokens":100,"output_tokens":{out},"cache_creation":{{"ephemeral_5m_input_tokens":4,"ephemeral_1h_input_tokens":6}}}}}}{req}}}"#
        )
    }

    /// One session of one file holding `lines`.
    fn estate(lines: &[String]) -> (EstateScan, Vec<Scan>) {
        let scan = scan_bytes(lines.join("\n").as_bytes(), Mode::Usage);
        let e = EstateScan {
            files: vec![EstateFile {
                path: "/p/-x/s1.jsonl".into(),
                kind: FileKind::Session,
                project: "-x".into(),
                session_id: Some("s1".into()),
                agent_id: None,
                size: 0,
                mtime_ms: 0.0,
            }],
            scans: vec![],
            pruned: vec![false],
            session_of_file: vec![0],
            sessions: vec![Session {
                project: "-x".into(),
                session_id: "s1".into(),
                main_file: Some(0),
                files: vec![0],
            }],
            main_facts: vec![],
        };
        (e, vec![scan])
    }

    fn text(rows: &TableRows, name: &str) -> Vec<Option<String>> {
        match rows.columns.iter().find(|(n, _)| n == name).map(|(_, v)| v.clone_strings()) {
            Some(Values::Strings(v)) => v,
            _ => panic!("no text column {name}"),
        }
    }

    #[test]
    fn a_request_per_counted_entry_by_day_with_its_key_and_tokens() {
        let (e, scans) = estate(&[
            entry(Some("r1"), "m1", "2026-03-01T23:59:58.000Z", 5, Some("t1")),
            // The same request again with more output, after midnight: it counts, on its day.
            entry(Some("r1"), "m1", "2026-03-02T00:00:03.000Z", 9, Some("t1")),
            entry(None, "m2", "2026-03-01T10:00:00.000Z", 2, Some("")),
            entry(None, "", "2026-03-01T11:00:00.000Z", 1, None),
        ]);
        let refs: Vec<&Scan> = scans.iter().collect();
        let (reqs, calls) = usage::counted_requests_and_tool_calls(&refs, &[200_000]);
        let r = request_rows(&e, &refs, &reqs, "laptop");
        assert_eq!(text(&r.rows, "machine"), vec![Some("laptop".to_string()); 3]);
        let keys = text(&r.rows, "request_key");
        let day = |d: &str| r.rows.days.iter().find(|(x, _)| x == d).map(|(_, rows)| rows.clone()).unwrap();
        let at = |rows: Vec<u32>| rows.iter().map(|&i| keys[i as usize].clone().unwrap()).collect::<Vec<_>>();
        // requestId, else message.id, else the file and line.
        assert_eq!(at(day("2026-03-01")), ["m2", "/p/-x/s1.jsonl:4"]);
        assert_eq!(at(day("2026-03-02")), ["r1"]);
        let i = keys.iter().position(|k| k.as_deref() == Some("r1")).unwrap();
        assert_eq!(r.pricing.output[i], 9.0);
        assert_eq!((r.pricing.cache_write_5m[i], r.pricing.cache_write_1h[i]), (4.0, 6.0));
        assert_eq!(r.pricing.models, ["claude-sonnet-4-5"]);
        assert_eq!(text(&r.rows, "request_id")[i].as_deref(), Some("r1"));
        let m2 = keys.iter().position(|k| k.as_deref() == Some("m2")).unwrap();
        assert_eq!(text(&r.rows, "request_id")[m2], None);

        // Tool calls: one per distinct id; one written without an id is named by its place.
        let t = tool_call_rows(&e, &refs, &calls, "laptop");
        let mut ids = text(&t, "tool_use_id").into_iter().flatten().collect::<Vec<_>>();
        ids.sort();
        assert_eq!(ids, ["s1:1772359200000:Bash:0", "t1"]);
        assert_eq!(text(&t, "target"), vec![Some("ls".to_string()); 2]);
    }

    #[test]
    fn requests_of_one_model_day_speed_and_band_share_a_price_key() {
        let (e, scans) = estate(&[
            entry(Some("r1"), "m1", "2026-03-01T08:00:00.000Z", 5, None),
            entry(Some("r2"), "m2", "2026-03-01T20:00:00.000Z", 5, None),
            entry(Some("r3"), "m3", "2026-03-02T08:00:00.000Z", 5, None),
            entry(Some("r4"), "m4", "2026-03-02T09:00:00.000Z", 5, None),
        ]);
        let refs: Vec<&Scan> = scans.iter().collect();
        let (reqs, _) = usage::counted_requests_and_tool_calls(&refs, &[200_000]);
        let r = request_rows(&e, &refs, &reqs, "laptop");
        let p = &r.pricing;
        // in time order: two keys, one per day, each with its first request's time
        assert_eq!(p.key, [0, 0, 1, 1]);
        assert_eq!(p.keys.len(), 2);
        assert_eq!(p.keys[1].time_ms, p.time_ms[2]);
        assert_eq!((p.keys[0].model, p.keys[0].prompt_band), (0, 0));

        let per_key = KeyPricing {
            estimated: vec![0, 1],
            fast: vec![0, 0],
            long_context: vec![1, 0],
            priced_as: vec![Some("claude-sonnet-4-5".into()), None],
        };
        let cost = vec![0.5, 0.25, f64::NAN, 1.0];
        let cols = p.cost_columns(cost.clone(), &per_key).unwrap();
        let col = |name: &str| cols.iter().find(|(n, _)| n == name).map(|(_, v)| v.clone_strings()).unwrap();
        assert!(matches!(col("priced"), Values::Flags(f) if f == [1, 1, 0, 1]));
        assert!(matches!(col("price_estimated"), Values::Flags(f) if f == [0, 0, 1, 1]));
        assert!(matches!(col("long_context"), Values::Flags(f) if f == [1, 1, 0, 0]));
        let sonnet = Some("claude-sonnet-4-5".to_string());
        assert!(matches!(col("priced_as"), Values::Strings(s) if s == [sonnet.clone(), sonnet, None, None]));
        assert!(p.cost_columns(vec![0.0], &per_key).is_err(), "one cost per request");

        // one session: every request, the priced ones' cost, the first time
        let sums = p.session_sums(&cost);
        assert_eq!((sums.session, sums.requests, sums.cost), (vec![0], vec![4], vec![1.75]));
        assert_eq!(sums.first_ms, [p.time_ms[0]]);
    }

    #[test]
    fn utc_days_as_javascript_names_them() {
        assert_eq!(utc_day(None), "unknown");
        assert_eq!(utc_day(Some(0)), "1970-01-01");
        assert_eq!(utc_day(Some(-1)), "1969-12-31");
        assert_eq!(utc_day(Some(1_709_164_800_500)), "2024-02-29");
        assert_eq!(utc_day(Some(1_796_021_762_123)), "2026-11-30");
        assert_eq!(utc_day(Some(1_767_225_599_999)), "2025-12-31");
    }

    #[test]
    fn keys_in_utf16_order() {
        // U+FF5E sorts after U+1F600 in UTF-16 (a surrogate pair starts at 0xD83D), before it in UTF-8.
        assert_eq!(utf16_cmp("\u{1F600}", "\u{FF5E}"), Ordering::Less);
        assert_eq!(utf16_cmp("a", "b"), Ordering::Less);
        let times = [Some(5), None, Some(5), Some(86_400_000)];
        let keys = ["b", "z", "a", "c"].map(String::from);
        assert_eq!(
            days_of(&times, |i| keys[i].as_str()),
            [
                ("1970-01-01".to_string(), vec![2, 0]),
                ("1970-01-02".to_string(), vec![3]),
                ("unknown".to_string(), vec![1])
            ]
        );
    }
}
