use super::*;

fn user(text: &str, at: &str) -> String {
    format!(
        "{{\"type\":\"user\",\"uuid\":\"u\",\"sessionId\":\"s1\",\"cwd\":\"/w/p\",\"version\":\"2.1.0\",\"entrypoint\":\"cli\",\"timestamp\":\"{at}\",\"message\":{{\"role\":\"user\",\"content\":{}}}}}\n",
        crate::json_string::json_string(text)
    )
}

fn assistant(at: &str, pad: usize) -> String {
    format!(
        "{{\"type\":\"assistant\",\"uuid\":\"a\",\"timestamp\":\"{at}\",\"version\":\"2.1.9\",\"message\":{{\"role\":\"assistant\",\"content\":[{{\"type\":\"text\",\"text\":\"{}\"}}]}}}}\n",
        "x".repeat(pad)
    )
}

#[test]
fn the_title_is_the_custom_one_then_the_last_generated_then_a_summary_then_the_first_prompt() {
    let mut t = String::new();
    t += "{\"type\":\"summary\",\"summary\":\"old summary\",\"leafUuid\":\"a\"}\n";
    t += &user("<command-name>/clear</command-name>", "2026-11-01T10:00:00.000Z");
    t += &user("  fix   the\n build ", "2026-11-01T10:00:01.000Z");
    t += &assistant("2026-11-01T10:00:02.000Z", 10);
    let f = facts_of_bytes(t.as_bytes(), true);
    assert_eq!((f.title.as_deref(), f.title_source), (Some("old summary"), Some(TitleSource::Summary)));
    assert_eq!(f.first_prompt.as_deref(), Some("fix   the\n build"));
    assert_eq!(f.messages, 3);
    assert!(f.complete);

    t += "{\"type\":\"ai-title\",\"aiTitle\":\"first generated\",\"sessionId\":\"s1\"}\n";
    t += "{\"sessionId\":\"s1\",\"aiTitle\":\"second generated\",\"type\":\"ai-title\"}\n";
    let f = facts_of_bytes(t.as_bytes(), true);
    assert_eq!((f.title.as_deref(), f.title_source), (Some("second generated"), Some(TitleSource::AiTitle)));

    t += "{\"type\":\"custom-title\",\"customTitle\":\"mine\",\"sessionId\":\"s1\"}\n";
    t += "{\"type\":\"custom-title\",\"customTitle\":\"\",\"sessionId\":\"s1\"}\n";
    let f = facts_of_bytes(t.as_bytes(), true);
    assert_eq!((f.title.as_deref(), f.title_source), (Some("mine"), Some(TitleSource::CustomTitle)));
    assert_eq!(f.cwd.as_deref(), Some("/w/p"));
    assert_eq!(f.session_id.as_deref(), Some("s1"));
    assert_eq!(f.entrypoint.as_deref(), Some("cli"));
    // the version of the last record with a timestamp: the last client that wrote
    assert_eq!(f.version.as_deref(), Some("2.1.9"));
    assert_eq!(f.last_timestamp.as_deref(), Some("2026-11-01T10:00:02.000Z"));
}

#[test]
fn a_prompt_title_is_one_line_of_at_most_80_units_cut_between_characters() {
    let long = format!("{}\u{3000}{}", "word ".repeat(10), "😀".repeat(40));
    let line = one_line(&long);
    assert!(line.ends_with('…'));
    assert!(line.encode_utf16().count() <= 80);
    assert!(!line.contains("  ") && !line.contains('\u{3000}'));
    // 50 units of words and spaces, then whole emoji (two units each) up to 79
    assert_eq!(line, format!("{}{}…", "word ".repeat(10), "😀".repeat(14)));
    assert_eq!(one_line("\u{feff} a\u{a0}\u{2028}b \t"), "a b");
    assert_eq!(one_line(&"y".repeat(80)), "y".repeat(80));
    // the cut falls after a space: the space goes
    assert_eq!(one_line(&format!("{} zz", "y".repeat(78))), format!("{}…", "y".repeat(78)));
}

#[test]
fn tool_results_meta_sidechain_and_compaction_records_are_no_first_prompt() {
    let rec = |extra: &str, content: &str| {
        format!("{{\"type\":\"user\",\"cwd\":\"/w\",{extra}\"message\":{{\"content\":{content}}}}}\n")
    };
    let mut t = String::new();
    t += &rec("\"isMeta\":true,", "\"meta\"");
    t += &rec("\"toolUseResult\":null,", "\"tool\"");
    t += &rec("\"isSidechain\":true,", "\"side\"");
    t += &rec("\"isCompactSummary\":true,", "\"compact\"");
    t += &rec("", "[{\"type\":\"tool_result\",\"content\":\"r\"},{\"type\":\"text\",\"text\":\"with a result\"}]");
    t += &rec("", "\"Caveat: The messages below were generated\"");
    t += &rec("", "[{\"type\":\"image\"},{\"type\":\"text\",\"text\":\"look\"},{\"type\":\"text\",\"text\":\"here\"}]");
    let f = facts_of_bytes(t.as_bytes(), false);
    assert_eq!(f.first_prompt.as_deref(), Some("look here"));
    assert_eq!(f.messages, 0, "not counted");
}

#[test]
fn a_large_file_is_read_in_its_head_and_tail_only() {
    let mut t = user("the first prompt", "2026-11-01T10:00:00.000Z");
    // a title in the middle, outside both windows, is not seen
    while t.len() < 400 * 1024 {
        t += &assistant("2026-11-01T10:01:00.000Z", 2000);
    }
    t += "{\"type\":\"custom-title\",\"customTitle\":\"hidden\"}\n";
    while t.len() < 900 * 1024 {
        t += &assistant("2026-11-01T10:02:00.000Z", 2000);
    }
    t += "{\"type\":\"ai-title\",\"aiTitle\":\"at the end\"}\n";
    t += &assistant("2026-11-01T10:03:00.000Z", 10);
    t += "{\"type\":\"last-prompt\",\"lastPrompt\":\"x\"}\n";
    let size = t.len() as u64;
    let f = facts_of_bytes(t.as_bytes(), true);
    assert!(!f.complete);
    assert_eq!(f.bytes_read, HEAD_BYTES + TAIL_BYTES);
    assert_eq!(f.title.as_deref(), Some("at the end"));
    assert_eq!(f.first_prompt.as_deref(), Some("the first prompt"));
    assert_eq!(f.last_timestamp.as_deref(), Some("2026-11-01T10:03:00.000Z"));
    assert!(f.messages > 0 && f.messages < 400);

    // from a file, the same
    let dir = std::env::temp_dir().join(format!("cj-facts-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("s.jsonl");
    std::fs::write(&path, &t).unwrap();
    assert_eq!(facts_of_file(&path, size, true).unwrap(), f);
    let (g, head) = facts_and_head_of_file(&path, size, true, 256 * 1024, |h| h.len() == 256 * 1024).unwrap();
    assert_eq!(g, f);
    assert!(head);
    std::fs::remove_dir_all(dir).unwrap();
}

#[test]
fn a_tail_without_a_valid_timestamp_is_widened_once() {
    let mut t = user("p", "2026-11-01T10:00:00.000Z");
    while t.len() < 600 * 1024 {
        t += &assistant("2026-11-01T10:01:00.000Z", 2000);
    }
    t += &assistant("2026-11-01T10:09:00.000Z", 10);
    while t.len() < 1200 * 1024 {
        t += &format!("{{\"type\":\"progress\",\"timestamp\":\"not a time\",\"data\":\"{}\"}}\n", "z".repeat(2000));
    }
    let f = facts_of_bytes(t.as_bytes(), false);
    assert_eq!(f.last_timestamp.as_deref(), Some("2026-11-01T10:09:00.000Z"));
    assert_eq!(f.bytes_read, HEAD_BYTES + (t.len() as u64 - HEAD_BYTES).min(WIDE_BYTES));
}

#[test]
fn a_file_whose_first_line_is_no_json_is_named_no_transcript() {
    let f = facts_of_bytes(b"hello world\nmore text\n", true);
    assert_eq!(f.problem, Some("not a JSONL transcript (line 1 is not valid JSON)"));
    let f = facts_of_bytes(b"[1,2]\n", true);
    assert_eq!(f.problem, Some("not a JSONL transcript (line 1 is not a JSON object)"));
    let f = facts_of_bytes(b"{\"type\":\"user\"}\n", true);
    assert_eq!(f.problem, None);
}

#[test]
fn a_lone_surrogate_or_bytes_that_are_not_utf8_do_not_hide_a_title() {
    let t = b"{\"type\":\"ai-title\",\"aiTitle\":\"cut \\ud83d here\"}\n{\"type\":\"custom-title\",\"customTitle\":\"caf\xe9\"}\n";
    let f = facts_of_bytes(t, false);
    assert_eq!(f.ai_title.as_deref(), Some("cut \u{fffd} here"));
    assert_eq!(f.custom_title.as_deref(), Some("caf\u{fffd}"));
}

/// A window's lines as a plain split gives them: every run without a newline, in order, the
/// first left out when the window's start cut it, a last one without newline left out when its
/// end did.
fn split_lines(buf: &[u8], cut_start: bool, cut_end: bool) -> Vec<(usize, usize)> {
    let mut out = Vec::new();
    let mut start = 0;
    for (i, &b) in buf.iter().enumerate() {
        if b == b'\n' {
            out.push((start, i));
            start = i + 1;
        }
    }
    let last_cut = start < buf.len() && cut_end;
    if start < buf.len() && !last_cut {
        out.push((start, buf.len()));
    }
    if cut_start {
        // the text before the first newline belongs to a line the window's start cut
        if buf.contains(&b'\n') {
            out.remove(0);
        } else {
            out.clear();
        }
    }
    out.retain(|&(s, e)| e > s);
    out
}

#[test]
fn a_window_s_lines_found_as_asked_are_the_lines_a_plain_split_gives() {
    let pieces: [&[u8]; 6] = [b"\n", b"\n\n", b"{\"a\":1}", b"x", b"{\"type\":\"summary\",\"summary\":\"s\"}", b"\r"];
    // Every window of up to five pieces (6^5 of them), with each cut.
    let mut seen = 0;
    for n in 0..=5u32 {
        for mut k in 0..6usize.pow(n) {
            let mut buf = Vec::new();
            for _ in 0..n {
                buf.extend_from_slice(pieces[k % 6]);
                k /= 6;
            }
            for (cut_start, cut_end) in [(false, false), (true, false), (false, true), (true, true)] {
                let want = split_lines(&buf, cut_start, cut_end);
                let ls = Lines::new(&buf, cut_start, cut_end);
                assert_eq!(ls.forward().collect::<Vec<_>>(), want, "{buf:?} {cut_start} {cut_end}");
                let mut back: Vec<_> = ls.backward().collect();
                back.reverse();
                assert_eq!(back, want);
                assert_eq!(ls.span(), want.first().map(|f| (f.0, want.last().unwrap().1)));
                for at in 0..buf.len() {
                    assert_eq!(ls.at(at), want.iter().copied().find(|&(s, e)| s <= at && at < e));
                }
                let summaries: Vec<_> = want
                    .iter()
                    .copied()
                    .filter(|&(s, e)| e - s > SUMMARY_LINE.len() && buf[s..].starts_with(SUMMARY_LINE))
                    .collect();
                assert_eq!(ls.starting_with(SUMMARY_LINE, SUMMARY_TYPE).collect::<Vec<_>>(), summaries);
                seen += 1;
            }
        }
    }
    assert_eq!(seen, 4 * (1 + 6 + 36 + 216 + 1296 + 7776));
}
