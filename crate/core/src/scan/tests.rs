use super::*;

const A1: &str = r#"{"parentUuid":"u0","isSidechain":false,"type":"assistant","uuid":"a1","timestamp":"2026-01-02T03:04:05.000Z","sessionId":"s1","version":"2.1.90","message":{"id":"msg_1","model":"claude-opus-4-5","role":"assistant","content":[{"type":"tool_use","id":"toolu_1","name":"Bash","input":{"command":"ls"}}],"stop_reason":null,"usage":{"input_tokens":2,"cache_creation_input_tokens":100,"cache_read_input_tokens":300,"cache_creation":{"ephemeral_5m_input_tokens":40,"ephemeral_1h_input_tokens":60},"output_tokens":5}},"requestId":"req_1"}"#;
const U1: &str = r#"{"parentUuid":"a1","type":"user","uuid":"u1","message":{"role":"user","content":[{"type":"tool_result","tool_use_id":"toolu_1","content":"said \"usage\": 1"}]},"toolUseResult":{"stdout":"x"}}"#;

fn full(s: &str) -> Scan {
    scan_bytes(s.as_bytes(), Mode::Full)
}

#[test]
fn extracts_fields() {
    let s = full(&format!("{A1}\n{U1}\n"));
    assert_eq!(s.counts.lines, 2);
    assert_eq!(s.records.len(), 2);
    let a = &s.records[0];
    assert_eq!(s.tables.strings.opt(a.kind), Some("assistant"));
    assert_eq!(s.tables.strings.opt(a.uuid), Some("a1"));
    assert_eq!(s.tables.strings.opt(a.parent_uuid), Some("u0"));
    assert_eq!(s.tables.strings.opt(a.request_id), Some("req_1"));
    assert_eq!(s.tables.strings.opt(a.message_id), Some("msg_1"));
    assert_eq!(s.tables.strings.opt(a.model), Some("claude-opus-4-5"));
    assert_eq!(s.tables.strings.opt(a.version), Some("2.1.90"));
    assert_eq!(a.stop_reason, None);
    let u = a.usage.unwrap();
    assert_eq!(
        (u.input, u.cache_creation, u.cache_5m, u.cache_1h, u.cache_read, u.output),
        (2, 100, Some(40), Some(60), 300, 5)
    );
    let tu = s.tables.tool_uses(a);
    assert_eq!(tu.len(), 1);
    assert_eq!(s.str(tu[0].name), "Bash");
    assert_eq!(a.offset, 0);
    assert_eq!(a.len as usize, A1.len());
    let b = &s.records[1];
    assert_eq!(b.offset as usize, A1.len() + 1);
    assert_eq!(b.line, 2);
    assert_eq!(s.tables.tool_results(b).iter().map(|x| s.str(*x)).collect::<Vec<_>>(), vec!["toolu_1"]);
    assert!(b.usage.is_none());
}

#[test]
fn tolerates_bom_crlf_blank_and_bad_lines() {
    let text = format!("\u{feff}{A1}\r\n\r\n   \n[1,2]\n{{nope\n42\n{U1}\n{{\"type\":\"us");
    let s = full(&text);
    assert!(s.bom);
    assert_eq!(s.counts.lines, 8);
    assert_eq!(s.counts.blank_lines, 2);
    assert_eq!(s.counts.crlf_lines, 2);
    assert_eq!(s.counts.non_object_lines, 2);
    assert_eq!(s.counts.bad_json_lines, 1);
    assert!(s.torn_tail && s.unterminated_tail);
    assert_eq!(s.records.len(), 2);
    assert_eq!(s.records[0].offset, 3);
    assert_eq!(s.records[0].len as usize, A1.len());
    assert_eq!(
        s.bad_lines[1],
        BadLine { line: 5, offset: (3 + A1.len() + 2 + 2 + 4 + 6) as u64, kind: BadKind::InvalidJson }
    );
    assert_eq!(s.first_line, FirstLine::Object);
}

#[test]
fn valid_json_the_parser_cannot_hold_is_counted_apart_and_never_torn() {
    let deep = format!("{}{}", "[".repeat(2000), "]".repeat(2000));
    let s = full(&format!("{A1}\n{deep}\n{{nope\n{{\"type\":\"user\",\"n\":1e400}}"));
    assert_eq!(s.counts.bad_json_lines, 3);
    assert_eq!(s.counts.unreadable_json_lines, 2);
    assert!(s.unterminated_tail && !s.torn_tail, "an unterminated 1e400 line is complete JSON");
    let kinds: Vec<BadKind> = s.bad_lines.iter().map(|b| b.kind).collect();
    assert_eq!(kinds, [BadKind::TooDeep, BadKind::InvalidJson, BadKind::NumberOutOfRange]);
    assert!(kinds[0].is_valid_json() && !kinds[1].is_valid_json());
}

#[test]
fn complete_last_line_without_newline_is_a_record() {
    let s = full(A1);
    assert_eq!(s.records.len(), 1);
    assert!(s.unterminated_tail && !s.torn_tail);
}

#[test]
fn reads_lines_with_lone_surrogates() {
    let line = r#"{"type":"progress","uuid":"p1","data":{"output":"cut \ud83d here \udc00 and \\ud83d"}}"#;
    let s = full(&format!("{line}\n"));
    assert_eq!(s.records.len(), 1);
    assert_eq!(s.counts.lone_surrogate_lines, 1);
    assert_eq!(s.counts.bad_json_lines, 0);
    assert_eq!(s.str(s.records[0].uuid.unwrap()), "p1");
}

#[test]
fn usage_mode_parses_only_usage_lines_and_counts_all() {
    let text = format!("{U1}\n{A1}\n\n{U1}\n{A1}");
    let s = scan_bytes(text.as_bytes(), Mode::Usage);
    assert_eq!(s.counts.lines, 5);
    assert_eq!(s.records.len(), 2);
    assert_eq!(s.records[0].line, 2);
    assert_eq!(s.records[1].line, 5);
    assert_eq!(s.records[1].offset as usize, text.len() - A1.len());
    assert_eq!(s.first_line, FirstLine::Object);
    let f = scan_bytes(b"hello world\nthis is prose\n", Mode::Usage);
    assert_eq!(f.first_line, FirstLine::Invalid);
    assert_eq!(f.counts.lines, 2);
}

#[test]
fn split_file_matches_whole_file() {
    // Many records with one long line crossing unit boundaries.
    let big = format!(
        r#"{{"type":"user","uuid":"big","message":{{"content":"{}"}}}}"#,
        "x".repeat((units_len() * 2 + 17) as usize)
    );
    let mut text = String::new();
    for i in 0..20000 {
        if i == 7000 {
            text.push_str(&big);
            text.push('\n');
        }
        // speed and tool targets are arena strings too: they must survive the chunk joins
        let a = A1.replace("\"a1\"", &format!("\"a{i}\"")).replace("\"ls\"", &format!("\"ls{i} -l\""));
        text.push_str(&a.replace("\"output_tokens\":5}", "\"output_tokens\":5,\"speed\":\"fast\"}"));
        text.push('\n');
        text.push_str(U1);
        text.push('\n');
    }
    text.push_str("{\"type\":\"tor");
    let dir = std::env::temp_dir().join(format!("cj-split-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("t.jsonl");
    std::fs::write(&path, &text).unwrap();
    for mode in [Mode::Full, Mode::Usage] {
        let whole = scan_bytes(text.as_bytes(), mode);
        for split in [scan_file(&path, mode).unwrap(), scan_bytes_parallel(text.as_bytes(), mode)] {
            assert!(split.bytes > units_len());
            assert_eq!(split.bytes, text.len() as u64);
            assert_eq!(split.counts, whole.counts);
            assert_eq!(split.records.len(), whole.records.len());
            assert_eq!(split.torn_tail, whole.torn_tail);
            assert_eq!(split.torn_tail, mode == Mode::Full);
            assert!(split.unterminated_tail);
            for (a, b) in split.records.iter().zip(&whole.records) {
                assert_eq!((a.offset, a.len, a.line), (b.offset, b.len, b.line));
                assert_eq!(split.tables.strings.opt(a.uuid), whole.tables.strings.opt(b.uuid));
                assert_eq!(split.tables.tool_uses(a).len(), whole.tables.tool_uses(b).len());
                let strings = |s: &Scan, r: &Record| {
                    let tu: Vec<Option<String>> = s
                        .tables
                        .tool_uses(r)
                        .iter()
                        .map(|t| s.tables.strings.opt(t.target).map(str::to_string))
                        .collect();
                    (tu, r.usage.and_then(|u| s.tables.strings.opt(u.speed).map(str::to_string)))
                };
                assert_eq!(strings(&split, a), strings(&whole, b));
                if whole.tables.strings.opt(b.kind) == Some("assistant") {
                    assert_eq!(strings(&whole, b).1.as_deref(), Some("fast"));
                    assert!(strings(&whole, b).0[0].as_deref().is_some_and(|t| t.starts_with("ls")));
                }
            }
        }
    }
    std::fs::remove_dir_all(&dir).unwrap();
}

fn units_len() -> u64 {
    units::UNIT_BYTES
}

#[test]
fn record_stays_compact() {
    // Estate-wide scans hold one Record per kept line; keep an eye on its size.
    assert!(std::mem::size_of::<Record>() <= 320, "Record is {} bytes", std::mem::size_of::<Record>());
    eprintln!("Record: {} bytes", std::mem::size_of::<Record>());
}

#[test]
fn parallel_scan_of_a_buffer_matches_the_whole_scan_with_bom_crlf_and_blank_lines() {
    let mut text = String::from("\u{feff}");
    for i in 0..12000 {
        text.push_str(&A1.replace("\"a1\"", &format!("\"a{i}\"")));
        text.push_str(if i % 3 == 0 { "\r\n" } else { "\n" });
        if i % 5 == 0 {
            text.push_str("\n{not json\n");
        }
    }
    let whole = scan_bytes(text.as_bytes(), Mode::Full);
    let split = scan_bytes_parallel(text.as_bytes(), Mode::Full);
    assert!(text.len() as u64 > 2 * units_len());
    assert_eq!((split.bytes, split.bom, split.counts), (whole.bytes, whole.bom, whole.counts));
    assert_eq!(split.bad_lines.len(), whole.bad_lines.len());
    assert!(split
        .records
        .iter()
        .zip(&whole.records)
        .all(|(a, b)| (a.offset, a.len, a.line) == (b.offset, b.len, b.line)));
}

#[test]
fn a_cancelled_scan_skips_every_unit_and_says_so() {
    let dir = std::env::temp_dir().join(format!("cj-cancel-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("a.jsonl");
    std::fs::write(&path, format!("{A1}\n")).unwrap();
    let progress = crate::scan::Progress::default();
    progress.cancelled.store(true, std::sync::atomic::Ordering::Relaxed);
    let got = crate::scan::scan_paths(std::slice::from_ref(&path), Mode::Full, &progress);
    assert_eq!(got[0].as_ref().unwrap_err().kind(), std::io::ErrorKind::Interrupted);
    let fresh = crate::scan::scan_paths(&[path], Mode::Full, &crate::scan::Progress::default());
    assert_eq!(fresh[0].as_ref().unwrap().records.len(), 1);
    std::fs::remove_dir_all(&dir).ok();
}

#[test]
fn a_file_in_memory_is_cut_into_the_units_read_from_disk() {
    // lines short and long (one longer than two units), a unit boundary right after a newline,
    // and a last line without its newline
    let u = units_len() as usize;
    let mut text = Vec::new();
    for i in 0..9000 {
        text.extend_from_slice(format!("{{\"n\":{i},\"pad\":\"{}\"}}\n", "x".repeat(i % 97)).as_bytes());
        if i == 4000 {
            text.extend(std::iter::repeat_n(b'y', 2 * u + 10));
            text.push(b'\n');
        }
    }
    text.truncate(text.len() - 1);
    let nl = text.iter().position(|&c| c == b'\n').unwrap();
    text.splice(nl + 1..nl + 1, std::iter::repeat_n(b'z', u - nl - 2).chain([b'\n']));
    assert_eq!(text[u - 1], b'\n');
    let dir = std::env::temp_dir().join(format!("cj-units-mem-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("f.jsonl");
    std::fs::write(&path, &text).unwrap();
    let seen = |unit: Option<(&[u8], UnitPlace)>| {
        unit.map(|(b, at)| (at.base, b.len(), at.file_start, at.file_end, xxhash_rust::xxh3::xxh3_64(b)))
    };
    let size = text.len() as u64;
    let disk = run(&[Job::new(&path, 0, size)], &Progress::default(), |_, u| seen(u), |_, p| Ok(p));
    let memory = units::run_in_memory(
        &[vec![0]],
        &[size],
        &Progress::default(),
        |_| Ok(vec![text.clone()]),
        |_, u| seen(u),
        |_, p, b| {
            assert_eq!(b.len(), text.len());
            Ok(p)
        },
    );
    let (disk, memory) = (disk.into_iter().next().unwrap().unwrap(), memory.into_iter().next().unwrap().unwrap());
    assert!(disk.len() > 3 && disk.iter().any(Option::is_none), "a unit inside the long line owns none");
    assert_eq!(memory, disk);
    std::fs::remove_dir_all(&dir).unwrap();
}

#[cfg(unix)]
#[test]
fn a_listed_file_that_is_a_fifo_by_the_time_it_is_read_does_not_block_the_scan() {
    let dir = std::env::temp_dir().join(format!("cj-fifo-swap-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let good = dir.join("a.jsonl");
    std::fs::write(&good, format!("{A1}\n")).unwrap();
    let fifo = dir.join("b.jsonl");
    let c = std::ffi::CString::new(fifo.to_str().unwrap()).unwrap();
    // SAFETY: a plain mkfifo of a fresh path.
    assert_eq!(unsafe { libc::mkfifo(c.as_ptr(), 0o600) }, 0);
    // listed with the size it had as a regular file; no writer ever opens the FIFO
    let size = std::fs::metadata(&good).unwrap().len();
    let (tx, rx) = std::sync::mpsc::channel();
    let (a, b) = (good.clone(), fifo.clone());
    std::thread::spawn(move || {
        let _ = tx.send(crate::scan::scan_sized(
            &[(a.as_path(), size), (b.as_path(), 4096)],
            Mode::Full,
            &Default::default(),
        ));
    });
    // (a blocking open would wait for a writer forever: fail instead of hanging the run)
    let got = rx.recv_timeout(std::time::Duration::from_secs(20)).expect("the scan ended");
    assert_eq!(got[0].as_ref().unwrap().records.len(), 1);
    assert!(got[1].as_ref().map_or(true, |s| s.records.is_empty()), "the FIFO reads as nothing");
    std::fs::remove_dir_all(&dir).ok();
}

#[test]
fn chunks_filled_into_one_parser_give_the_scans_of_fresh_parsers_whatever_their_size() {
    // a large chunk (a whole file scanned at once) leaves as it is, a small one as a copy of the
    // parser's reused scan: in any order, each is the scan a fresh parser makes
    let small = format!("{A1}\n{U1}\n");
    let large = format!("{A1}\n").repeat(100_000);
    let mut parser = Parser::default();
    for buf in [&small, &large, &small, &large] {
        let reused = scan_chunk(&mut parser, buf.as_bytes(), 0, true, true, Mode::Full);
        let fresh = scan_bytes(buf.as_bytes(), Mode::Full);
        assert_eq!(format!("{reused:?}"), format!("{fresh:?}"));
        assert_eq!(reused.records.len(), reused.records.capacity(), "kept tight");
    }
}
