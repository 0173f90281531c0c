use claude_jsonl_core::dataset::{self, schema::Table, Values};
fn main() {
    // one row of each table, encoded many times: the fixed cost of a part file
    for t in [Table::Requests, Table::Sessions, Table::ToolCalls] {
        let cols: Vec<(String, Values)> = t
            .columns()
            .iter()
            .map(|c| {
                let v = match c.ty {
                    dataset::schema::ColumnType::Utf8 => Values::Strings(vec![Some("x".into())]),
                    dataset::schema::ColumnType::Bool => Values::Flags(vec![1]),
                    dataset::schema::ColumnType::Float64 => Values::Numbers(vec![1.5]),
                    _ => Values::Numbers(vec![1.0]),
                };
                (c.name.to_string(), v)
            })
            .collect();
        let n = 2000;
        let t0 = std::time::Instant::now();
        for _ in 0..n {
            std::hint::black_box(dataset::encode_rows(t, &cols, None).unwrap());
        }
        println!("{}: {:.1} us per one-row file", t.name(), t0.elapsed().as_secs_f64() * 1e6 / n as f64);
    }
}
