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
    let scans: Vec<Scan> = files.iter().map(|f| scan_bytes(f.as_bytes(), Mode::Usage)).collect();
    let refs: Vec<&Scan> = scans.iter().collect();
    let sessions: Vec<u32> = vec![0; files.len()];
    aggregate(&refs, &sessions, subagent)
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
    assert!(k.long_context);
    assert_eq!((t.cache_5m, t.cache_1h), (100000, 200000));
    assert_eq!(k.slot, crate::scan::timestamp::parse_ms(b"2026-03-01T10:15:00Z").unwrap());
}
