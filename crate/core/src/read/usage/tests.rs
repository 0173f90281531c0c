use super::*;
use crate::scan::{scan_bytes, Mode};

fn entry(
    req: Option<&str>,
    msg: &str,
    side: bool,
    out: u64,
    cw: u64,
    tool: Option<(&str, &str)>,
    model: &str,
) -> String {
    let req = req.map_or(String::new(), |r| format!(r#","requestId":"{r}""#));
    let content = match tool {
        Some((id, name)) => {
            format!(r#"[{{"type":"tool_use","id":"{id}","name":"{name}","input":{{}}}}]"#)
        }
        None => r#"[{"type":"text","text":"hi"}]"#.to_string(),
    };
    format!(
        r#"{{"type":"assistant","isSidechain":{side},"timestamp":"2026-03-01T10:20:00.000Z","message":{{"id":"{msg}","model":"{model}","content":{content},"usage":{{"input_tokens":3,"cache_creation_input_tokens":{cw},"cache_read_input_tokens":1000,"output_tokens":{out}}}}}{req}}}"#
    )
}

fn run(files: &[String], subagent: &[bool]) -> UsageReport {
    run_with(files, subagent, &[200_000])
}

fn run_with(files: &[String], subagent: &[bool], thresholds: &[u64]) -> UsageReport {
    let scans: Vec<Scan> = files.iter().map(|f| scan_bytes(f.as_bytes(), Mode::Usage)).collect();
    let refs: Vec<&Scan> = scans.iter().collect();
    let sessions: Vec<u32> = vec![0; files.len()];
    aggregate(&refs, &sessions, subagent, thresholds, Targets::Count, Detail::Slots)
}

fn totals(r: &UsageReport) -> Tokens {
    let mut t = Tokens::default();
    for (_, b) in &r.buckets {
        t.requests += b.requests;
        t.input += b.input;
        t.cache_creation += b.cache_creation;
        t.cache_5m += b.cache_5m;
        t.cache_1h += b.cache_1h;
        t.cache_read += b.cache_read;
        t.output += b.output;
    }
    t
}

#[test]
fn keeps_the_whole_row_of_the_largest_output() {
    let f = [
        entry(Some("req_1"), "m1", false, 5, 700, None, "claude-opus-4-5"),
        entry(Some("req_1"), "m1", false, 5, 700, Some(("t1", "Bash")), "claude-opus-4-5"),
        // A later fragment with the largest output carries a different cache figure: take it whole.
        entry(Some("req_1"), "m1", false, 499, 710, Some(("t2", "Read")), "claude-opus-4-5"),
        entry(Some("req_1"), "m1", false, 499, 999, None, "claude-opus-4-5"),
    ]
    .join("\n");
    let r = run(&[f], &[false]);
    let t = totals(&r);
    assert_eq!((t.requests, t.input, t.cache_creation, t.cache_read, t.output), (1, 3, 710, 1000, 499));
    assert_eq!(r.assistant_entries, 4);
    let mut tools: Vec<(&str, u64)> =
        r.tools.iter().map(|(_, n, c)| (r.tool_names[*n as usize].as_str(), *c)).collect();
    tools.sort();
    assert_eq!(tools, vec![("Bash", 1), ("Read", 1)]);
}

#[test]
fn dedupes_across_files_and_drops_sidechain_replays_and_synthetic() {
    let main = [
        entry(Some("req_a"), "ma", false, 10, 0, Some(("t1", "Task")), "claude-sonnet-4-5"),
        entry(None, "mb", false, 20, 0, None, "claude-sonnet-4-5"),
        entry(None, "syn", false, 0, 0, None, "<synthetic>"),
    ]
    .join("\n");
    let resumed = entry(Some("req_a"), "ma", false, 10, 0, Some(("t1", "Task")), "claude-sonnet-4-5");
    let agent = [
        // Replay of the parent's message under a new requestId.
        entry(Some("req_replay"), "ma", true, 10, 0, None, "claude-sonnet-4-5"),
        entry(Some("req_vrtx_x"), "own", true, 7, 0, Some(("t9", "Grep")), "claude-haiku-4-5"),
    ]
    .join("\n");
    let r = run(&[main, resumed, agent], &[false, false, true]);
    let t = totals(&r);
    assert_eq!(t.requests, 3);
    assert_eq!(t.output, 37);
    assert_eq!(r.sidechain_replays, 1);
    assert_eq!(r.synthetic_entries, 1);
    let lanes: Vec<(Lane, bool, u64)> =
        r.buckets.iter().map(|(k, t)| (k.lane, k.subagent, t.requests)).filter(|x| x.2 > 0).collect();
    assert!(lanes.contains(&(Lane::Other, false, 1)));
    assert!(lanes.contains(&(Lane::None, false, 1)));
    assert!(lanes.contains(&(Lane::Vertex, true, 1)));
    assert_eq!(r.tools.iter().map(|t| t.2).sum::<u64>(), 2);
}

#[test]
fn splits_cache_writes_by_ttl_and_buckets_by_slot() {
    let line = r#"{"type":"assistant","timestamp":"2026-03-01T10:29:59.999Z","message":{"id":"m","model":"claude-opus-4-5","usage":{"input_tokens":1,"cache_creation_input_tokens":300000,"cache_read_input_tokens":0,"cache_creation":{"ephemeral_5m_input_tokens":100000,"ephemeral_1h_input_tokens":200000},"output_tokens":2}},"requestId":"req_z"}"#;
    let r = run(&[line.to_string()], &[false]);
    assert_eq!(r.buckets.len(), 1);
    let (k, t) = r.buckets[0];
    assert_eq!(k.prompt_band, 1);
    assert_eq!((t.cache_5m, t.cache_1h), (100000, 200000));
    assert_eq!(k.slot, crate::scan::timestamp::parse_ms(b"2026-03-01T10:15:00Z").unwrap());
}

fn usage_line(req: &str, msg: &str, usage: &str, content: &str) -> String {
    format!(
        r#"{{"type":"assistant","timestamp":"2026-03-01T10:20:00.000Z","message":{{"id":"{msg}","model":"claude-opus-4-6","content":{content},"usage":{usage}}},"requestId":"{req}"}}"#
    )
}

#[test]
fn bands_prompts_by_the_thresholds_given() {
    let sized = |req: &str, prompt: u64| {
        usage_line(
            req,
            req,
            &format!(r#"{{"input_tokens":{prompt},"cache_read_input_tokens":0,"output_tokens":1}}"#),
            "[]",
        )
    };
    let f = [sized("r1", 100_000), sized("r2", 100_001), sized("r3", 200_001)].join("\n");
    let r = run_with(std::slice::from_ref(&f), &[false], &[200_000, 100_000]);
    let mut bands: Vec<(u8, u64)> = r.buckets.iter().map(|(k, t)| (k.prompt_band, t.requests)).collect();
    bands.sort();
    assert_eq!(bands, [(0, 1), (1, 1), (2, 1)]);
    // No thresholds: one band.
    let r = run_with(&[f], &[false], &[]);
    assert_eq!(r.buckets.iter().map(|(k, t)| (k.prompt_band, t.requests)).collect::<Vec<_>>(), [(0, 3)]);
}

#[test]
fn keeps_speed_as_written_and_counts_malformed_usage() {
    let f = [
        usage_line("r1", "m1", r#"{"input_tokens":1,"output_tokens":2,"speed":"fast"}"#, "[]"),
        // the counted entry of a request decides its speed
        usage_line("r2", "m2", r#"{"input_tokens":1,"output_tokens":1}"#, "[]"),
        usage_line("r2", "m2", r#"{"input_tokens":1,"output_tokens":9,"speed":"fast"}"#, "[]"),
        usage_line("r3", "m3", r#"{"input_tokens":1,"output_tokens":2,"speed":"standard"}"#, "[]"),
        usage_line("r4", "m4", r#"{"input_tokens":1,"output_tokens":2,"speed":"turbo"}"#, "[]"),
        usage_line("r5", "m5", r#"{"input_tokens":"12","output_tokens":2,"speed":7}"#, "[]"),
        usage_line("r6", "m6", r#""n/a""#, "[]"),
        usage_line("r7", "m7", r#"{"input_tokens":-4,"output_tokens":null}"#, "[]"),
        usage_line("r8", "m8", r#"{"input_tokens":5,"output_tokens":null,"speed":null}"#, "[]"),
    ]
    .join("\n");
    let r = run(&[f], &[false]);
    let mut by_speed: Vec<(&str, u64)> =
        r.buckets.iter().map(|(k, t)| (r.speeds[k.speed as usize].as_str(), t.requests)).collect();
    by_speed.sort();
    assert_eq!(by_speed, [("", 4), ("fast", 2), ("standard", 1), ("turbo", 1)]);
    assert_eq!(r.speeds[0], "");
    // r5 (a string count, a number speed), r6 (not an object), r7 (a negative count); a null
    // count or speed is only absent.
    assert_eq!(r.malformed_usage_entries, 3);
    assert_eq!(totals(&r).requests, 8);
}

#[test]
fn counts_tool_targets_deduplicated_by_tool_use_id() {
    let read = |id: &str, path: &str| {
        format!(r#"{{"type":"tool_use","id":"{id}","name":"Read","input":{{"file_path":"{path}"}}}}"#)
    };
    let bash = |id: &str, cmd: &str| {
        format!(r#"{{"type":"tool_use","id":"{id}","name":"Bash","input":{{"command":"{cmd}"}}}}"#)
    };
    let u = r#"{"input_tokens":1,"output_tokens":1}"#;
    let f = [
        usage_line("r1", "m1", u, &format!("[{}]", read("t1", "/a.rs"))),
        // the same tool_use streamed again in a later fragment counts once
        usage_line("r1", "m1", u, &format!("[{},{}]", read("t1", "/a.rs"), bash("t2", "cargo test"))),
        usage_line("r2", "m2", u, &format!("[{},{}]", read("t3", "/a.rs"), read("t4", "/b.rs"))),
        usage_line("r3", "m3", u, &format!("[{}]", bash("t5", "cargo build"))),
        usage_line("r4", "m4", u, r#"[{"type":"tool_use","id":"t6","name":"TodoWrite","input":{"todos":[]}}]"#),
    ]
    .join("\n");
    let r = run(&[f], &[false]);
    let top = crate::read::tool_targets::top_targets(&r.tool_targets, &r.tool_names, &[], 10);
    #[allow(clippy::type_complexity)]
    let summary: Vec<(&str, u64, Vec<(&str, u64)>)> =
        top.iter().map(|t| (t.tool.as_str(), t.calls, t.top.iter().map(|(k, v)| (k.as_str(), *v)).collect())).collect();
    assert_eq!(
        summary,
        [("Read", 3, vec![("/a.rs", 2), ("/b.rs", 1)]), ("Bash", 2, vec![("cargo", 2)]), ("TodoWrite", 1, vec![])]
    );
    // the per-target counts add up to the per-tool counts
    let calls: u64 = r.tools.iter().map(|t| t.2).sum();
    assert_eq!(calls, r.tool_targets.counts.iter().map(|c| c.3).sum::<u64>());
    assert_eq!(calls, 6);
}

#[test]
fn counted_requests_are_the_ones_aggregate_sums_in_time_order() {
    let at = |e: String, t: &str| e.replace("2026-03-01T10:20:00.000Z", t);
    let main = [
        at(entry(Some("req_b"), "mb", false, 20, 0, None, "claude-sonnet-4-5"), "2026-03-01T11:00:00.000Z"),
        at(entry(Some("req_a"), "ma", false, 5, 0, None, "claude-sonnet-4-5"), "2026-03-01T09:00:00.000Z"),
        at(entry(Some("req_a"), "ma", false, 10, 0, None, "claude-sonnet-4-5"), "2026-03-01T09:00:01.000Z"),
        entry(None, "syn", false, 0, 0, None, "<synthetic>"),
        usage_line("req_t", "mt", r#"{"input_tokens":1,"output_tokens":2,"service_tier":"priority"}"#, "[]")
            .replace(r#""timestamp":"2026-03-01T10:20:00.000Z","#, ""),
    ]
    .join("\n");
    let agent = [
        // A replay of the parent's message under a new requestId: not a request.
        entry(Some("req_replay"), "ma", true, 10, 0, None, "claude-sonnet-4-5"),
        entry(Some("req_own"), "own", true, 7, 0, None, "claude-haiku-4-5"),
    ]
    .join("\n");
    let files = [main, agent];
    let scans: Vec<Scan> = files.iter().map(|f| scan_bytes(f.as_bytes(), Mode::Usage)).collect();
    let refs: Vec<&Scan> = scans.iter().collect();
    let (reqs, report) = counted_requests(&refs, &[200_000]);
    let summed = totals(&aggregate(&refs, &[0, 0], &[false, true], &[200_000], Targets::Count, Detail::Slots));
    assert_eq!(reqs.len() as u64, summed.requests);
    assert_eq!(report.sidechain_replays, 1);
    let usage = |c: &CountedRequest| refs[c.file as usize].records[c.record as usize].usage.unwrap();
    assert_eq!(reqs.iter().map(|c| usage(c).output).sum::<u64>(), summed.output);
    let key = |c: &CountedRequest| {
        let s = refs[c.file as usize];
        s.tables.strings.opt(crate::client::records::request_key(&s.records[c.record as usize])).unwrap().to_string()
    };
    // In time order, untimed last; the counted entry of req_a is its largest output (line 3).
    assert_eq!(reqs.iter().map(key).collect::<Vec<_>>(), ["req_a", "req_own", "req_b", "req_t"]);
    assert_eq!(refs[0].records[reqs[0].record as usize].line, 3);
    let tier = usage(&reqs[3]).service_tier.map(|s| refs[0].str(s));
    assert_eq!(tier, Some("priority"));
}

#[test]
fn cache_writes_without_a_split_are_five_minute_ones() {
    let u = |cw, c5: Option<u64>, c1: Option<u64>| Usage {
        cache_creation: cw,
        cache_5m: c5,
        cache_1h: c1,
        ..Default::default()
    };
    assert_eq!(cache_writes(&u(300, None, None)), (300, 0));
    assert_eq!(cache_writes(&u(300, Some(100), Some(200))), (100, 200));
    assert_eq!(cache_writes(&u(100, None, Some(900))), (0, 100));
}

#[test]
fn counted_tool_calls_are_the_calls_aggregate_counts_with_their_errors() {
    let call = |id: &str, path: &str| {
        format!(r#"[{{"type":"tool_use","id":"{id}","name":"Read","input":{{"file_path":"{path}"}}}}]"#)
    };
    let result = |id: &str, error: bool| {
        format!(
            r#"{{"type":"user","message":{{"role":"user","content":[{{"tool_use_id":"{id}","type":"tool_result","content":"x","is_error":{error}}}]}}}}"#
        )
    };
    let u = r#"{"input_tokens":1,"output_tokens":1}"#;
    let f = [
        usage_line("r1", "m1", u, &call("t1", "/a.rs")),
        // streamed again: one call
        usage_line("r1", "m1", u, &call("t1", "/a.rs")),
        result("t1", true),
        usage_line("r2", "m2", u, &call("t2", "/b.rs")),
        result("t2", false),
        usage_line("r3", "m3", u, &call("t3", "/c.rs")),
    ]
    .join("\n");
    for (mode, errors) in [(Mode::UsageAndToolErrors, vec![true, false, false]), (Mode::Full, vec![true, false, false])]
    {
        let scan = scan_bytes(f.as_bytes(), mode);
        let calls = counted_tool_calls(&[&scan]);
        let names: Vec<&str> = calls
            .iter()
            .map(|c| scan.str(scan.tables.tool_uses(&scan.records[c.record as usize])[c.call as usize].id))
            .collect();
        assert_eq!(names, ["t1", "t2", "t3"], "{mode:?}");
        assert_eq!(calls.iter().map(|c| c.is_error).collect::<Vec<_>>(), errors, "{mode:?}");
        let r = aggregate(&[&scan], &[0], &[false], &[], Targets::Count, Detail::Slots);
        assert_eq!(r.tools.iter().map(|t| t.2).sum::<u64>(), calls.len() as u64);
    }
    // A usage scan keeps no tool results: no call is known to have failed.
    let scan = scan_bytes(f.as_bytes(), Mode::Usage);
    assert!(counted_tool_calls(&[&scan]).iter().all(|c| !c.is_error));
    // The error prefilter keeps the erroring result's record only; the usage scan's requests are
    // the same.
    let lean = scan_bytes(f.as_bytes(), Mode::UsageAndToolErrors);
    assert_eq!(lean.records.len(), scan.records.len() + 1);
}

#[test]
fn counted_entries_name_each_requests_largest_output_and_skip_what_is_not_counted() {
    let file = [
        entry(Some("req_a"), "ma", false, 5, 0, None, "claude-sonnet-4-5"),
        entry(Some("req_a"), "ma", false, 10, 0, None, "claude-sonnet-4-5"),
        entry(None, "syn", false, 0, 0, None, "<synthetic>"),
        entry(Some("req_b"), "mb", false, 20, 0, None, "claude-sonnet-4-5"),
        // a sidechain replay of message ma under a new requestId
        entry(Some("req_replay"), "ma", true, 10, 0, None, "claude-sonnet-4-5"),
        r#"{"type":"user","message":{"role":"user","content":"hi"}}"#.to_string(),
    ]
    .join("\n");
    let scan = scan_bytes(file.as_bytes(), Mode::Full);
    let none = u32::MAX;
    assert_eq!(counted_entries(&scan), [1, 1, none, 3, none, none]);
}

/// Many files with requests repeated across them, several models and speeds, tool calls with
/// and without targets and ids seen in more than one file.
fn mixed_estate() -> Vec<String> {
    let models = ["claude-opus-4-5", "claude-sonnet-4-5", "claude-haiku-4-5"];
    let speeds = [r#""speed":"fast","#, r#""speed":"standard","#, ""];
    (0..40)
        .map(|f| {
            (0..25)
                .map(|i| {
                    // every fifth request is also written in the next file (a resumed session)
                    let r = if i % 5 == 0 && f > 0 { format!("r{}-{i}", f - 1) } else { format!("r{f}-{i}") };
                    let tool = match i % 4 {
                        0 => format!(
                            r#"{{"type":"tool_use","id":"t{r}","name":"Read","input":{{"file_path":"/p/{}.rs"}}}}"#,
                            i % 7
                        ),
                        1 => format!(
                            r#"{{"type":"tool_use","id":"t{r}","name":"Bash","input":{{"command":"cargo {}"}}}}"#,
                            f % 3
                        ),
                        2 => r#"{"type":"tool_use","id":"","name":"TodoWrite","input":{}}"#.to_string(),
                        _ => r#"{"type":"text","text":"x"}"#.to_string(),
                    };
                    let u = format!(
                        r#"{{{}"input_tokens":{},"cache_read_input_tokens":{},"output_tokens":{}}}"#,
                        speeds[(f + i) % 3],
                        i + 1,
                        (f * 7919 + i * 104_729) % 300_000,
                        (i * 13 + f) % 50
                    );
                    usage_line(&r, &format!("m{r}"), &u, &format!("[{tool}]"))
                        .replace("claude-opus-4-6", models[(f / 3 + i) % 3])
                        .replace(
                            "2026-03-01T10:20:00.000Z",
                            &format!("2026-03-0{}T1{}:{}5:00.000Z", 1 + f % 5, i % 10, i % 6),
                        )
                })
                .collect::<Vec<_>>()
                .join("\n")
        })
        .collect()
}

#[test]
fn the_report_is_the_same_whatever_the_number_of_parallel_parts() {
    let files = mixed_estate();
    let scans: Vec<Scan> = files.iter().map(|f| scan_bytes(f.as_bytes(), Mode::Usage)).collect();
    let refs: Vec<&Scan> = scans.iter().collect();
    let sessions: Vec<u32> = (0..files.len() as u32).map(|f| f / 4).collect();
    let subagent: Vec<bool> = (0..files.len()).map(|f| f % 4 == 3).collect();
    let report = |threads: usize, targets: Targets| {
        let pool = rayon::ThreadPoolBuilder::new().num_threads(threads).build().unwrap();
        let r = pool.install(|| aggregate(&refs, &sessions, &subagent, &[100_000, 200_000], targets, Detail::Slots));
        format!("{r:?}")
    };
    let one = report(1, Targets::Count);
    assert!(one.contains("/p/3.rs") && one.contains("claude-haiku-4-5") && one.contains("fast"));
    for threads in [2, 3, 7] {
        assert_eq!(report(threads, Targets::Count), one, "{threads} threads");
    }
    // Without targets: the same report but for the per-target counts.
    let skipped = aggregate(&refs, &sessions, &subagent, &[100_000, 200_000], Targets::Skip, Detail::Slots);
    let mut counted = aggregate(&refs, &sessions, &subagent, &[100_000, 200_000], Targets::Count, Detail::Slots);
    assert!(!counted.tool_targets.counts.is_empty());
    assert!(skipped.tool_targets.counts.is_empty() && skipped.tool_targets.targets.is_empty());
    counted.tool_targets = TargetCounts::default();
    assert_eq!(format!("{skipped:?}"), format!("{counted:?}"));
}

#[test]
fn buckets_by_day_sum_to_the_same_totals_in_fewer_buckets_priced_alike() {
    let files = mixed_estate();
    let scans: Vec<Scan> = files.iter().map(|f| scan_bytes(f.as_bytes(), Mode::Usage)).collect();
    let refs: Vec<&Scan> = scans.iter().collect();
    let sessions: Vec<u32> = (0..files.len() as u32).map(|f| f / 4).collect();
    let subagent: Vec<bool> = (0..files.len()).map(|f| f % 4 == 3).collect();
    let th = [100_000, 200_000];
    let fine = aggregate(&refs, &sessions, &subagent, &th, Targets::Count, Detail::Slots);
    let days = aggregate(&refs, &sessions, &subagent, &th, Targets::Count, Detail::Days);
    assert_eq!(totals(&days), totals(&fine));
    assert!(days.buckets.len() < fine.buckets.len(), "{} buckets by day", days.buckets.len());
    assert!(days.buckets.iter().all(|(k, _)| k.session == ALL_SESSIONS && k.slot.rem_euclid(86_400_000) == 0));
    // What pricing reads of a bucket is kept: the sums by (UTC day, model, speed, band, lane,
    // subagent) are the same either way.
    let by_price = |r: &UsageReport| {
        let mut m = std::collections::BTreeMap::<(i64, String, String, u8, Lane, bool), Tokens>::new();
        for (k, t) in &r.buckets {
            let key = (
                k.slot.div_euclid(86_400_000),
                r.models[k.model as usize].clone(),
                r.speeds[k.speed as usize].clone(),
                k.prompt_band,
                k.lane,
                k.subagent,
            );
            *m.entry(key).or_default() += t;
        }
        m
    };
    assert_eq!(by_price(&days), by_price(&fine));
    // Tool calls: the same counts per tool.
    let per_tool = |r: &UsageReport| {
        let mut m = std::collections::BTreeMap::<String, u64>::new();
        for &(_, name, calls) in &r.tools {
            *m.entry(r.tool_names[name as usize].clone()).or_default() += calls;
        }
        m
    };
    assert_eq!(per_tool(&days), per_tool(&fine));
}
