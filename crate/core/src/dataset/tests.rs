use super::schema::{markdown, Table, SCHEMA_VERSION};
use super::*;

fn strings(v: &[Option<&str>]) -> Values {
    Values::Strings(v.iter().map(|s| s.map(str::to_string)).collect())
}

/// Every column of `table` filled with `rows` rows of plausible values.
fn filled(table: Table, rows: usize) -> Vec<(String, Values)> {
    table
        .columns()
        .iter()
        .map(|c| {
            let v = match c.ty {
                ColumnType::Utf8 => Values::Strings((0..rows).map(|i| Some(format!("{}-{i}", c.name))).collect()),
                ColumnType::Int64 | ColumnType::TimestampMillis => {
                    Values::Numbers((0..rows).map(|i| 1_767_225_600_000.0 + i as f64).collect())
                }
                ColumnType::Float64 => Values::Numbers((0..rows).map(|i| i as f64 * 0.25).collect()),
                ColumnType::Bool => Values::Flags((0..rows).map(|i| (i % 2) as u8).collect()),
            };
            (c.name.to_string(), v)
        })
        .collect()
}

#[test]
fn every_table_has_a_schema_parquet_accepts_and_encodes_its_rows() {
    for t in Table::ALL {
        t.parquet_schema().unwrap_or_else(|e| panic!("{}: {e}", t.name()));
        let bytes = encode(t, filled(t, 3)).unwrap();
        assert_eq!(&bytes[..4], b"PAR1", "{}", t.name());
        let first = t.columns()[0].name;
        let back = read_strings(bytes, first).unwrap();
        assert_eq!(back, (0..3).map(|i| Some(format!("{first}-{i}"))).collect::<Vec<_>>());
    }
}

#[test]
fn each_column_is_compressed_and_encoded_as_the_schema_says() {
    use parquet::basic::{Compression as C, Encoding};
    for t in Table::ALL {
        let bytes = bytes::Bytes::from(encode(t, filled(t, 50)).unwrap());
        let reader = SerializedFileReader::new(bytes).unwrap();
        let group = reader.metadata().row_group(0);
        for (c, chunk) in t.columns().iter().zip(group.columns()) {
            let zstd = matches!(chunk.compression(), C::ZSTD(_));
            assert_eq!(zstd, c.zstd, "{}.{}: {:?}", t.name(), c.name, chunk.compression());
            assert!(zstd || chunk.compression() == C::UNCOMPRESSED, "{}.{}", t.name(), c.name);
            let dictionary = chunk.encodings().any(|e| e == Encoding::RLE_DICTIONARY);
            assert_eq!(dictionary, c.dictionary && c.ty != ColumnType::Bool, "{}.{}", t.name(), c.name);
        }
    }
    // what each rule is for: no boolean is compressed, every unique id is plain
    assert!(Table::ALL.iter().flat_map(|t| t.columns()).all(|c| c.ty != ColumnType::Bool || !c.zstd));
    for (t, id) in [(Table::Requests, "request_key"), (Table::ToolCalls, "tool_use_id"), (Table::Messages, "uuid")] {
        assert!(!t.columns().iter().find(|c| c.name == id).unwrap().dictionary, "{id}");
    }
}

#[test]
fn nulls_are_kept_where_a_column_allows_them_and_refused_where_it_does_not() {
    let mut cols = filled(Table::Requests, 2);
    let agent = cols.iter_mut().find(|(n, _)| n == "agent_id").unwrap();
    agent.1 = strings(&[None, Some("a1")]);
    let bytes = encode(Table::Requests, cols).unwrap();
    assert_eq!(read_strings(bytes, "agent_id").unwrap(), vec![None, Some("a1".to_string())]);

    let mut cols = filled(Table::Requests, 2);
    cols.iter_mut().find(|(n, _)| n == "model").unwrap().1 = strings(&[None, Some("m")]);
    let e = encode(Table::Requests, cols).unwrap_err();
    assert!(e.message.contains("column model has a null"), "{}", e.message);
}

#[test]
fn a_missing_column_an_unknown_one_a_wrong_kind_or_length_is_refused() {
    let mut cols = filled(Table::ToolCalls, 2);
    cols.retain(|(n, _)| n != "tool");
    assert!(encode(Table::ToolCalls, cols).unwrap_err().message.contains("column tool is missing"));
    let mut cols = filled(Table::ToolCalls, 2);
    cols.push(("bogus".into(), strings(&[None, None])));
    assert!(encode(Table::ToolCalls, cols).unwrap_err().message.contains("no column bogus"));
    let mut cols = filled(Table::ToolCalls, 2);
    cols.iter_mut().find(|(n, _)| n == "tool").unwrap().1 = Values::Numbers(vec![1.0, 2.0]);
    assert!(encode(Table::ToolCalls, cols).unwrap_err().message.contains("another kind"));
    let mut cols = filled(Table::ToolCalls, 2);
    cols.iter_mut().find(|(n, _)| n == "tool").unwrap().1 = strings(&[Some("x")]);
    assert!(encode(Table::ToolCalls, cols).unwrap_err().message.contains("has 1 rows, not 2"));
    let mut cols = filled(Table::Requests, 1);
    cols.iter_mut().find(|(n, _)| n == "input_tokens").unwrap().1 = Values::Numbers(vec![1.5]);
    assert!(encode(Table::Requests, cols).unwrap_err().message.contains("not a whole number"));
}

#[test]
fn bytes_that_are_not_parquet_are_an_io_failure() {
    let e = read_strings(b"not parquet".to_vec(), "machine").unwrap_err();
    assert_eq!(e.code, Code::Io);
}

/// `docs/dataset-schema.md` is generated from the schema (`node scripts/dataset-schema.mjs` sets
/// `CLAUDE_JSONL_WRITE_DATASET_SCHEMA=1` and runs this test, which then writes the file).
#[test]
fn dataset_schema_doc_is_current() {
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../docs/dataset-schema.md");
    let doc = format!(
        "<!-- Generated from crate/core/src/dataset/schema.rs by `node scripts/dataset-schema.mjs`: do not edit. -->\n# Dataset schema, version {SCHEMA_VERSION}\n\nThe tables `claude-jsonl export` writes ([the dataset](dataset.md)). Token columns keep the\nAnthropic usage names; the last column names the OpenTelemetry GenAI attribute each corresponds to.\n{}",
        markdown()
    );
    if std::env::var_os("CLAUDE_JSONL_WRITE_DATASET_SCHEMA").is_some() {
        std::fs::write(&path, &doc).unwrap();
    }
    let committed = std::fs::read_to_string(&path).unwrap_or_default();
    assert!(committed == doc, "docs/dataset-schema.md is stale: run `node scripts/dataset-schema.mjs`");
}

#[test]
fn a_file_decodes_to_the_values_it_was_encoded_from() {
    let mut cols = filled(Table::Requests, 3);
    cols.iter_mut().find(|(n, _)| n == "agent_id").unwrap().1 = strings(&[None, Some("a"), None]);
    cols.iter_mut().find(|(n, _)| n == "cost_usd").unwrap().1 = Values::Numbers(vec![0.5, f64::NAN, 2.0]);
    let bytes = encode(Table::Requests, cols).unwrap();
    let back = decode(Table::Requests, bytes.clone()).unwrap();
    let again = encode(Table::Requests, back).unwrap();
    assert_eq!(again, bytes, "decode then encode gives the same file");
}

#[test]
fn joined_text_encodes_as_the_same_file_as_separate_strings() {
    let values = [None, Some("a1"), Some(""), Some("ünï")];
    let mut separate = filled(Table::Requests, 4);
    separate.iter_mut().find(|(n, _)| n == "agent_id").unwrap().1 = strings(&values);
    let mut joined = filled(Table::Requests, 4);
    joined.iter_mut().find(|(n, _)| n == "agent_id").unwrap().1 =
        Values::Joined { text: "\0a1\0\0ünï".into(), nulls: vec![1, 0, 0, 0] };
    let a = encode(Table::Requests, separate).unwrap();
    assert_eq!(a, encode(Table::Requests, joined).unwrap());
    assert_eq!(read_strings(a, "agent_id").unwrap(), values.map(|v| v.map(str::to_string)).to_vec());
    // No row at all, and a count that does not match the rows.
    assert!(encode(Table::Requests, (0..0).map(|_| unreachable!()).collect::<Vec<(String, Values)>>()).is_err());
    let mut short = filled(Table::Requests, 4);
    short.iter_mut().find(|(n, _)| n == "agent_id").unwrap().1 =
        Values::Joined { text: "a\0b".into(), nulls: vec![0; 4] };
    assert!(encode(Table::Requests, short).unwrap_err().message.contains("fewer values"));
    let mut empty = filled(Table::Requests, 0);
    empty.iter_mut().find(|(n, _)| n == "agent_id").unwrap().1 = Values::Joined { text: String::new(), nulls: vec![] };
    assert!(encode(Table::Requests, empty).is_ok());
}

#[test]
fn some_rows_encode_as_the_file_of_those_rows_alone() {
    let mut cols = filled(Table::Requests, 4);
    let text = strings(&[Some("a"), None, Some("c"), Some("d")]);
    let joined = Values::Joined { text: "a\0\0c\0d".to_string(), nulls: vec![0, 1, 0, 0] };
    cols.iter_mut().find(|(n, _)| n == "priced_as").unwrap().1 = joined;
    let picked = [2u32, 0, 1];
    let alone: Vec<(String, Values)> = cols
        .iter()
        .map(|(n, v)| (n.clone(), if n == "priced_as" { text.gather(&picked) } else { v.gather(&picked) }))
        .collect();
    assert_eq!(encode_rows(Table::Requests, &cols, Some(&picked)).unwrap(), encode(Table::Requests, alone).unwrap());
    assert!(encode_rows(Table::Requests, &cols, Some(&[4])).unwrap_err().message.contains("no row 4"));
}

#[test]
fn a_text_column_holds_a_repeated_value_once_and_encodes_as_separate_strings_do() {
    let values = [Some("p1"), Some("p1"), None, Some("ünï"), Some("p1"), Some("")];
    let mut b = TextBuilder::with_capacity(values.len());
    values.iter().for_each(|v| b.push(*v));
    let text = b.finish();
    assert_eq!((0..text.len()).map(|i| text.get(i)).collect::<Vec<_>>(), values);
    // Row after row the same value: one copy of its bytes ("p1", "ünï", "p1" again, "").
    assert_eq!(text.bytes.len(), "p1ünïp1".len());
    let mut separate = filled(Table::Requests, values.len());
    separate.iter_mut().find(|(n, _)| n == "agent_id").unwrap().1 = strings(&values);
    let mut shared = filled(Table::Requests, values.len());
    shared.iter_mut().find(|(n, _)| n == "agent_id").unwrap().1 = Values::Text(text);
    let picked = [4u32, 2, 0];
    assert_eq!(
        encode_rows(Table::Requests, &shared, None).unwrap(),
        encode_rows(Table::Requests, &separate, None).unwrap()
    );
    assert_eq!(
        encode_rows(Table::Requests, &shared, Some(&picked)).unwrap(),
        encode_rows(Table::Requests, &separate, Some(&picked)).unwrap()
    );
    let gathered = shared.iter().find(|(n, _)| n == "agent_id").unwrap().1.gather(&picked);
    assert!(
        matches!(gathered.clone_strings(), Values::Strings(v) if v == [Some("p1".into()), None, Some("p1".into())])
    );
    // NUL-joined text becomes a column over its own bytes; a miscount is refused.
    let joined = Values::Joined { text: "a\0\0c".into(), nulls: vec![0, 1, 0] }.into_text().unwrap();
    assert!(matches!(joined.clone_strings(), Values::Strings(v) if v == [Some("a".into()), None, Some("c".into())]));
    assert!(Values::Joined { text: "a\0b".into(), nulls: vec![0] }.into_text().is_err());
}

/// A file of `columns` as the parquet crate's column writer makes it when it compresses the
/// pages itself (a zstd context for every column chunk).
fn encoded_by_the_column_writer(table: Table, columns: &[(String, Values)]) -> Vec<u8> {
    use parquet::basic::ZstdLevel;
    let specs = table.columns();
    let props = specs.iter().fold(
        WriterProperties::builder()
            .set_compression(Compression::ZSTD(ZstdLevel::try_new(zstd_pages::LEVEL).unwrap()))
            .set_created_by(format!("claude-jsonl dataset schema {}", schema::SCHEMA_VERSION)),
        |b, c| {
            let b = match c.zstd {
                true => b,
                false => b.set_column_compression(ColumnPath::from(c.name), Compression::UNCOMPRESSED),
            };
            b.set_column_dictionary_enabled(ColumnPath::from(c.name), c.dictionary)
        },
    );
    let mut out = Vec::new();
    let schema = Arc::new(table.parquet_schema().unwrap());
    let mut writer = SerializedFileWriter::new(&mut out, schema, Arc::new(props.build())).unwrap();
    let mut group = writer.next_row_group().unwrap();
    for spec in specs {
        let mut col = group.next_column().unwrap().unwrap();
        let values = &columns.iter().find(|(n, _)| n == spec.name).unwrap().1;
        // SAFETY: `columns` outlives the writers, dropped in this function.
        unsafe { write_column(&mut col, spec, values, None, table).unwrap() };
        col.close().unwrap();
    }
    group.close().unwrap();
    writer.close().unwrap();
    out
}

#[test]
fn pages_compressed_with_a_context_per_thread_make_the_bytes_the_column_writer_makes() {
    for t in Table::ALL {
        // one page per column, then enough rows for several pages and a dictionary given up
        for rows in [3, 120_000] {
            let cols = filled(t, rows);
            let ours = encode_rows(t, &cols, None).unwrap();
            assert!(ours == encoded_by_the_column_writer(t, &cols), "{} with {rows} rows", t.name());
            let reader = SerializedFileReader::new(bytes::Bytes::from(ours)).unwrap();
            assert_eq!(reader.metadata().file_metadata().num_rows(), rows as i64);
        }
    }
}
