//! The team dataset: the tables `export` writes, their schema (one owner: this module, versioned),
//! and Parquet encoding of one partition's rows (zstd) into bytes the caller publishes: to a
//! file through the durable write, or to object storage. Engines read the files as they are
//! (DuckDB here, Spark, Trino, ClickHouse); the day a row belongs to is the hive partition
//! folder (`day=YYYY-MM-DD`), never a column of the file, since Spark refuses a partition column
//! that the file repeats.

pub mod estate;
pub mod messages;
pub mod schema;
mod zstd_pages;

use crate::failure::{Code, Failure};
use crate::read::transcript_facts::{self, TranscriptFacts};
use parquet::basic::Compression;
use parquet::column::page::PageWriter;
use parquet::column::writer::get_column_writer;
use parquet::data_type::{BoolType, ByteArray, ByteArrayType, DoubleType, Int64Type};
use parquet::file::properties::{WriterProperties, WriterVersion};
use parquet::file::reader::{FileReader, SerializedFileReader};
use parquet::file::writer::{
    OnCloseColumnChunk, SerializedColumnWriter, SerializedFileWriter, SerializedPageWriter, TrackedWrite,
};
use parquet::record::Field;
use parquet::schema::types::ColumnPath;
use schema::{ColumnType, Table};
use std::io::Write;
use std::sync::Arc;
use zstd_pages::ZstdPages;

/// The values of one column as they cross from the caller: strings (null allowed), numbers
/// (integers, doubles and timestamps in ms; NaN is null) or flags (0 false, 1 true, 2 null).
pub enum Values {
    Strings(Vec<Option<String>>),
    /// Text values joined by NUL (a null as an empty value), with `nulls[i]` 1 where value i
    /// is null: one string across the boundary instead of one per value. No value holds a NUL.
    Joined {
        text: String,
        nulls: Vec<u8>,
    },
    Numbers(Vec<f64>),
    Flags(Vec<u8>),
    /// Text values in one shared buffer ([`TextColumn`]): how the core builds its own columns.
    Text(TextColumn),
}

/// Text values held in one buffer, value i being `spans[i]` of it (None for a null): a part
/// file's values are slices of the buffer rather than a copy each, and a value that repeats
/// row after row (the machine, a session's project and id, a model) is held once.
#[derive(Clone, Default)]
pub struct TextColumn {
    bytes: bytes::Bytes,
    spans: Vec<Option<(usize, usize)>>,
}

impl TextColumn {
    pub fn len(&self) -> usize {
        self.spans.len()
    }

    pub fn is_empty(&self) -> bool {
        self.spans.is_empty()
    }

    /// Value `i` (None for a null).
    pub fn get(&self, i: usize) -> Option<&str> {
        let (start, end) = self.spans[i]?;
        // SAFETY: the buffer is only ever made of whole `str` values (TextBuilder::push) or of
        // a `String` cut at NUL bytes (from_joined), and every span is one value's bounds, so
        // each span is valid UTF-8.
        Some(unsafe { std::str::from_utf8_unchecked(&self.bytes[start..end]) })
    }

    /// Value `i`'s bytes in the shared buffer, None for a null.
    fn get_bytes(&self, i: usize) -> Option<&[u8]> {
        self.spans[i].map(|(start, end)| &self.bytes[start..end])
    }

    /// Value `i` as a slice of the shared buffer (no copy), None for a null.
    fn shared(&self, i: usize) -> Option<bytes::Bytes> {
        self.spans[i].map(|(start, end)| self.bytes.slice(start..end))
    }

    /// The values of `rows`, in that order, over the same buffer.
    fn gather(&self, rows: &[u32]) -> TextColumn {
        TextColumn { bytes: self.bytes.clone(), spans: rows.iter().map(|&i| self.spans[i as usize]).collect() }
    }

    /// NUL-joined text (see [`Values::Joined`]) as a column over the same bytes.
    fn from_joined(text: String, nulls: &[u8]) -> Result<TextColumn, String> {
        let spans = joined_spans(&text, nulls)?;
        let spans = spans.into_iter().zip(nulls).map(|(span, &null)| (null == 0).then_some(span)).collect();
        Ok(TextColumn { bytes: bytes::Bytes::from(text.into_bytes()), spans })
    }
}

/// Builds a [`TextColumn`] value by value.
#[derive(Default)]
pub struct TextBuilder {
    bytes: Vec<u8>,
    spans: Vec<Option<(usize, usize)>>,
    last: Option<(usize, usize)>,
    /// Values are not compared with the last one (they do not repeat).
    unique: bool,
}

impl TextBuilder {
    pub fn with_capacity(values: usize) -> TextBuilder {
        TextBuilder { spans: Vec::with_capacity(values), ..Default::default() }
    }

    /// For values that do not repeat one another (ids unique to their row): each is copied
    /// without first being compared with the last.
    pub fn for_unique(values: usize) -> TextBuilder {
        TextBuilder { unique: true, ..TextBuilder::with_capacity(values) }
    }

    /// `n` values, each `value`: one copy of its bytes.
    pub fn repeated(value: &str, n: usize) -> TextColumn {
        let span = Some((0, value.len()));
        TextColumn { bytes: bytes::Bytes::copy_from_slice(value.as_bytes()), spans: vec![span; n] }
    }

    /// Appends a value (None for a null); one equal to the last value appended shares its bytes.
    pub fn push(&mut self, value: Option<&str>) {
        let Some(v) = value else {
            self.spans.push(None);
            return;
        };
        if let (Some((start, end)), false) = (self.last, self.unique) {
            if &self.bytes[start..end] == v.as_bytes() {
                self.spans.push(self.last);
                return;
            }
        }
        let start = self.bytes.len();
        self.bytes.extend_from_slice(v.as_bytes());
        self.last = Some((start, self.bytes.len()));
        self.spans.push(self.last);
    }

    pub fn finish(self) -> TextColumn {
        TextColumn { bytes: bytes::Bytes::from(self.bytes), spans: self.spans }
    }
}

impl Values {
    /// The values of `rows`, in that order (joined text comes out as strings).
    pub fn gather(&self, rows: &[u32]) -> Values {
        let pick = |i: &u32| *i as usize;
        match self {
            Values::Strings(v) => Values::Strings(rows.iter().map(|i| v[pick(i)].clone()).collect()),
            Values::Joined { text, nulls } => match TextColumn::from_joined(text.clone(), nulls) {
                Ok(t) => Values::Text(t.gather(rows)),
                Err(_) => self.clone_strings().gather(rows),
            },
            Values::Numbers(v) => Values::Numbers(rows.iter().map(|i| v[pick(i)]).collect()),
            Values::Flags(v) => Values::Flags(rows.iter().map(|i| v[pick(i)]).collect()),
            Values::Text(t) => Values::Text(t.gather(rows)),
        }
    }

    /// Joined text as a [`TextColumn`] over its bytes (no copy per value); other values as
    /// they are. Fails when the text holds more or fewer values than `nulls` says.
    pub fn into_text(self) -> Result<Values, String> {
        match self {
            Values::Joined { text, nulls } => Ok(Values::Text(TextColumn::from_joined(text, &nulls)?)),
            other => Ok(other),
        }
    }

    /// Joined text as one string per value; other values as they are.
    pub fn clone_strings(&self) -> Values {
        match self {
            Values::Joined { text, nulls } => {
                let parts = if nulls.is_empty() { Vec::new() } else { text.split('\0').collect() };
                Values::Strings(
                    nulls
                        .iter()
                        .zip(parts.iter().chain(std::iter::repeat(&"")))
                        .map(|(&n, s)| (n == 0).then(|| s.to_string()))
                        .collect(),
                )
            }
            Values::Strings(v) => Values::Strings(v.clone()),
            Values::Text(t) => Values::Strings((0..t.len()).map(|i| t.get(i).map(str::to_string)).collect()),
            Values::Numbers(v) => Values::Numbers(v.clone()),
            Values::Flags(v) => Values::Flags(v.clone()),
        }
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    pub fn len(&self) -> usize {
        match self {
            Values::Strings(v) => v.len(),
            Values::Joined { nulls, .. } => nulls.len(),
            Values::Numbers(v) => v.len(),
            Values::Flags(v) => v.len(),
            Values::Text(t) => t.len(),
        }
    }
}

fn bad(message: impl Into<String>) -> Failure {
    Failure::new(Code::InvalidArgument, message)
}

fn parquet_failure(e: parquet::errors::ParquetError) -> Failure {
    Failure::new(Code::Internal, format!("parquet: {e}"))
}

/// Encodes the rows of `table` (every column of its schema, by name, all of one length) as one
/// Parquet file, zstd-compressed, in memory.
pub fn encode(table: Table, columns: Vec<(String, Values)>) -> Result<Vec<u8>, Failure> {
    encode_rows(table, &columns, None)
}

/// One file of `table` for each of `days` (indices of rows of `columns`, in the order its file
/// holds them), made side by side on the pool: what [`encode_rows`] writes for each. Joined text
/// is split once for them all.
pub fn encode_days(table: Table, columns: Vec<(String, Values)>, days: &[Vec<u32>]) -> Result<Vec<Vec<u8>>, Failure> {
    use rayon::prelude::*;
    let columns = columns
        .into_iter()
        .map(|(name, v)| v.into_text().map(|v| (name, v)))
        .collect::<Result<Vec<_>, String>>()
        .map_err(|e| bad(format!("table {}: {e}", table.name())))?;
    days.par_iter().map(|rows| encode_rows(table, &columns, Some(rows))).collect()
}

/// The Parquet schema and writer properties of `table`'s files, made once per table (a part file
/// is small, and making them was a third of its fixed cost): each column's encoding as the schema
/// says; the pages of the columns it compresses are compressed by `ZstdPages`, so the column
/// writer itself is told to compress none.
fn writer_setup(table: Table) -> Result<(Arc<parquet::schema::types::Type>, Arc<WriterProperties>), Failure> {
    type Setup = (Arc<parquet::schema::types::Type>, Arc<WriterProperties>);
    static SETUPS: std::sync::OnceLock<Vec<Result<Setup, String>>> = std::sync::OnceLock::new();
    let setups = SETUPS.get_or_init(|| {
        Table::ALL
            .iter()
            .map(|&t| {
                let schema = t.parquet_schema().map_err(|e| e.to_string())?;
                let props = t
                    .columns()
                    .iter()
                    .fold(
                        WriterProperties::builder()
                            .set_writer_version(WriterVersion::PARQUET_1_0)
                            .set_compression(Compression::UNCOMPRESSED)
                            .set_created_by(format!("claude-jsonl dataset schema {}", schema::SCHEMA_VERSION)),
                        |b, c| b.set_column_dictionary_enabled(ColumnPath::from(c.name), c.dictionary),
                    )
                    .build();
                Ok((Arc::new(schema), Arc::new(props)))
            })
            .collect()
    });
    let at = Table::ALL.iter().position(|&t| t == table).expect("every table is in Table::ALL");
    // (a schema that does not parse is this build's fault, as any other Parquet failure here)
    setups[at].clone().map_err(|e| Failure::new(Code::Internal, format!("parquet: {e}")))
}

/// Encodes rows `rows` (indices, in the order the file holds them; None: every row in order) of
/// `columns` as one file of `table`: what [`encode`] writes for those rows alone. A day's file of
/// an estate's rows is made straight from the estate's columns, without a copy of its values.
pub fn encode_rows(table: Table, columns: &[(String, Values)], rows: Option<&[u32]>) -> Result<Vec<u8>, Failure> {
    let specs = table.columns();
    let mut by_name: Vec<Option<&Values>> = vec![None; specs.len()];
    for (name, values) in columns {
        let i = specs
            .iter()
            .position(|c| c.name == *name)
            .ok_or_else(|| bad(format!("table {}: no column {name}", table.name())))?;
        by_name[i] = Some(values);
    }
    let len = by_name.iter().flatten().map(|v| v.len()).next().unwrap_or(0);
    let mut ordered = Vec::with_capacity(specs.len());
    for (spec, v) in specs.iter().zip(by_name) {
        let v = v.ok_or_else(|| bad(format!("table {}: column {} is missing", table.name(), spec.name)))?;
        if v.len() != len {
            return Err(bad(format!("table {}: column {} has {} rows, not {len}", table.name(), spec.name, v.len())));
        }
        ordered.push(v);
    }
    if let Some(&i) = rows.and_then(|r| r.iter().find(|&&i| i as usize >= len)) {
        return Err(bad(format!("table {}: no row {i} (of {len})", table.name())));
    }
    let (schema, props) = writer_setup(table)?;
    let mut out = Vec::new();
    let mut writer = SerializedFileWriter::new(&mut out, schema, props.clone()).map_err(parquet_failure)?;
    let descriptors = writer.schema_descr().columns().to_vec();
    let mut group = writer.next_row_group().map_err(parquet_failure)?;
    for ((spec, values), descriptor) in specs.iter().zip(&ordered).zip(descriptors) {
        // The chunk is written into a buffer of its own, then appended to the row group.
        let mut chunk = Vec::new();
        let mut closed = None;
        {
            let mut sink = TrackedWrite::new(&mut chunk);
            let pages = SerializedPageWriter::new(&mut sink);
            let pages: Box<dyn PageWriter> = match spec.zstd {
                true => Box::new(ZstdPages { inner: pages }),
                false => Box::new(pages),
            };
            let on_close: OnCloseColumnChunk<'_> = Box::new(|c| {
                closed = Some(c);
                Ok(())
            });
            let mut col =
                SerializedColumnWriter::new(get_column_writer(descriptor, props.clone(), pages), Some(on_close));
            // SAFETY: `columns` outlives the column writer and the file writer, both dropped
            // before this function returns the file's bytes.
            unsafe { write_column(&mut col, spec, values, rows, table)? };
            col.close().map_err(parquet_failure)?;
            sink.flush().map_err(|e| parquet_failure(e.into()))?;
        }
        let mut closed = closed.ok_or_else(|| bad("a column chunk was not closed"))?;
        if spec.zstd {
            closed.metadata = zstd_pages::as_zstd(closed.metadata).map_err(parquet_failure)?;
        }
        group.append_column(&bytes::Bytes::from(chunk), closed).map_err(parquet_failure)?;
    }
    group.close().map_err(parquet_failure)?;
    writer.close().map_err(parquet_failure)?;
    Ok(out)
}

/// The indices `rows` gives, else 0..len.
fn picked(rows: Option<&[u32]>, len: usize) -> Box<dyn Iterator<Item = usize> + '_> {
    match rows {
        Some(r) => Box::new(r.iter().map(|&i| i as usize)),
        None => Box::new(0..len),
    }
}

/// Where each value of NUL-joined text starts and ends (`nulls.len()` values; none for no row).
fn joined_spans(text: &str, nulls: &[u8]) -> Result<Vec<(usize, usize)>, String> {
    let mut spans = Vec::with_capacity(nulls.len());
    if nulls.is_empty() {
        return Ok(spans);
    }
    let mut start = 0usize;
    for end in memchr::memchr_iter(0, text.as_bytes()).chain(std::iter::once(text.len())) {
        if spans.len() == nulls.len() {
            return Err("more values than rows".into());
        }
        spans.push((start, end));
        start = end + 1;
    }
    if spans.len() != nulls.len() {
        return Err("fewer values than rows".into());
    }
    Ok(spans)
}

/// Writes `values` (the rows `rows` of them, else all) to the column writer `col`.
///
/// # Safety
///
/// The text of `values` is handed to the writer without a reference count (see below): `values`
/// must outlive the column writer and the file writer its chunk goes to, as the caller's
/// `values` do when it drops both before it returns.
unsafe fn write_column(
    col: &mut parquet::file::writer::SerializedColumnWriter<'_>,
    spec: &schema::Column,
    values: &Values,
    rows: Option<&[u32]>,
    table: Table,
) -> Result<(), Failure> {
    let wrong = || bad(format!("table {}: column {} has values of another kind", table.name(), spec.name));
    let null = |name: &str| bad(format!("table {}: column {name} has a null, which it does not allow", table.name()));
    let n = rows.map_or(values.len(), <[u32]>::len);
    // Definition levels: 1 where a value is present, 0 for a null (only in nullable columns).
    let mut levels: Vec<i16> = Vec::with_capacity(n);
    let mut present = |is: bool| -> Result<(), Failure> {
        if !is && !spec.nullable {
            return Err(null(spec.name));
        }
        levels.push(is as i16);
        Ok(())
    };
    match (spec.ty, values) {
        (ColumnType::Utf8, Values::Strings(v)) => {
            let mut data = Vec::with_capacity(n);
            for i in picked(rows, v.len()) {
                let s = &v[i];
                present(s.is_some())?;
                if let Some(s) = s {
                    data.push(ByteArray::from(s.as_bytes().to_vec()));
                }
            }
            col.typed::<ByteArrayType>().write_batch(&data, spec.nullable.then_some(&levels), None)
        }
        (ColumnType::Utf8, Values::Joined { text, nulls }) => {
            // Every value a slice of one copy of the text, made here: the writer's copies of
            // a value (its dictionary, its statistics) keep that copy alive.
            let t = TextColumn::from_joined(text.clone(), nulls)
                .map_err(|e| bad(format!("table {}: column {} has {e}", table.name(), spec.name)))?;
            let mut data = Vec::with_capacity(n);
            for i in picked(rows, t.len()) {
                let v = t.shared(i);
                present(v.is_some())?;
                if let Some(v) = v {
                    data.push(ByteArray::from(v));
                }
            }
            col.typed::<ByteArrayType>().write_batch(&data, spec.nullable.then_some(&levels), None)
        }
        (ColumnType::Utf8, Values::Text(t)) => {
            let mut data = Vec::with_capacity(n);
            for i in picked(rows, t.len()) {
                let v = t.get_bytes(i);
                present(v.is_some())?;
                if let Some(v) = v {
                    // SAFETY: the value is borrowed from `values`, which by this function's contract
                    // outlives every copy of it the writers keep (the column writer's dictionary
                    // and statistics, the file's metadata). A static `Bytes` is cloned and dropped
                    // without the shared reference count a slice of the column's buffer updates
                    // for each value (a tenth of the encoding's CPU, with two threads writing days
                    // of one table).
                    let v: &'static [u8] = unsafe { std::mem::transmute::<&[u8], &'static [u8]>(v) };
                    data.push(ByteArray::from(bytes::Bytes::from_static(v)));
                }
            }
            col.typed::<ByteArrayType>().write_batch(&data, spec.nullable.then_some(&levels), None)
        }
        (ColumnType::Int64 | ColumnType::TimestampMillis, Values::Numbers(v)) => {
            let mut data = Vec::with_capacity(n);
            for i in picked(rows, v.len()) {
                let x = v[i];
                present(!x.is_nan())?;
                if !x.is_nan() {
                    if x.fract() != 0.0 || x.abs() > 9.007_199_254_740_992e15 {
                        return Err(bad(format!(
                            "table {}: column {} holds {x}, not a whole number",
                            table.name(),
                            spec.name
                        )));
                    }
                    data.push(x as i64);
                }
            }
            col.typed::<Int64Type>().write_batch(&data, spec.nullable.then_some(&levels), None)
        }
        (ColumnType::Float64, Values::Numbers(v)) => {
            let mut data = Vec::with_capacity(n);
            for i in picked(rows, v.len()) {
                let x = v[i];
                present(!x.is_nan())?;
                if !x.is_nan() {
                    data.push(x);
                }
            }
            col.typed::<DoubleType>().write_batch(&data, spec.nullable.then_some(&levels), None)
        }
        (ColumnType::Bool, Values::Flags(v)) => {
            let mut data = Vec::with_capacity(n);
            for i in picked(rows, v.len()) {
                let x = v[i];
                present(x != 2)?;
                if x != 2 {
                    data.push(x == 1);
                }
            }
            col.typed::<BoolType>().write_batch(&data, spec.nullable.then_some(&levels), None)
        }
        _ => return Err(wrong()),
    }
    .map_err(parquet_failure)?;
    Ok(())
}

fn unreadable(e: parquet::errors::ParquetError) -> Failure {
    Failure::new(Code::Io, format!("not a readable Parquet file: {e}"))
}

/// Every column of `table` read back from a file of it held in `bytes`: how an export merges
/// the rows it wrote before with the rows it has now, so that rows whose transcripts were
/// cleaned up since stay in the dataset.
pub fn decode(table: Table, bytes: Vec<u8>) -> Result<Vec<(String, Values)>, Failure> {
    let reader = SerializedFileReader::new(bytes::Bytes::from(bytes)).map_err(unreadable)?;
    let specs = table.columns();
    let names: Vec<String> =
        reader.metadata().file_metadata().schema().get_fields().iter().map(|f| f.name().to_string()).collect();
    let at: Vec<Option<usize>> = specs.iter().map(|c| names.iter().position(|n| n == c.name)).collect();
    for (spec, i) in specs.iter().zip(&at) {
        if i.is_none() && !spec.nullable {
            return Err(Failure::new(
                Code::Io,
                format!("the Parquet file has no column {} of table {}", spec.name, table.name()),
            ));
        }
    }
    let mut out: Vec<Values> = specs
        .iter()
        .map(|c| match c.ty {
            ColumnType::Utf8 => Values::Strings(Vec::new()),
            ColumnType::Bool => Values::Flags(Vec::new()),
            _ => Values::Numbers(Vec::new()),
        })
        .collect();
    for row in reader.get_row_iter(None).map_err(unreadable)? {
        let row = row.map_err(unreadable)?;
        let fields: Vec<&Field> = row.get_column_iter().map(|(_, f)| f).collect();
        for (k, values) in out.iter_mut().enumerate() {
            let f = at[k].map(|i| fields[i]);
            let wrong = || {
                Failure::new(Code::Io, format!("column {} of table {} holds another type", specs[k].name, table.name()))
            };
            match values {
                Values::Strings(v) => v.push(match f {
                    Some(Field::Str(s)) => Some(s.clone()),
                    Some(Field::Null) | None => None,
                    _ => return Err(wrong()),
                }),
                Values::Joined { .. } | Values::Text(_) => unreachable!("decode collects text as strings"),
                Values::Flags(v) => v.push(match f {
                    Some(Field::Bool(b)) => *b as u8,
                    Some(Field::Null) | None => 2,
                    _ => return Err(wrong()),
                }),
                Values::Numbers(v) => v.push(match f {
                    Some(Field::Long(x)) => *x as f64,
                    Some(Field::TimestampMillis(x)) => *x as f64,
                    Some(Field::Double(x)) => *x,
                    Some(Field::Null) | None => f64::NAN,
                    _ => return Err(wrong()),
                }),
            }
        }
    }
    Ok(specs.iter().map(|c| c.name.to_string()).zip(out.into_iter().map(joined)).collect())
}

/// Text values joined by NUL when none holds one (a cheaper crossing), else as they are.
fn joined(v: Values) -> Values {
    match v {
        Values::Strings(s) if !s.iter().flatten().any(|x| x.contains('\0')) => {
            let nulls = s.iter().map(|x| x.is_none() as u8).collect();
            let text = s.iter().map(|x| x.as_deref().unwrap_or("")).collect::<Vec<_>>().join("\0");
            Values::Joined { text, nulls }
        }
        other => other,
    }
}

/// The values of one text column of a Parquet file held in `bytes` (nulls as None): how an
/// export reads the request keys another machine already wrote into a partition.
pub fn read_strings(bytes: Vec<u8>, column: &str) -> Result<Vec<Option<String>>, Failure> {
    let reader = SerializedFileReader::new(bytes::Bytes::from(bytes)).map_err(unreadable)?;
    let root = reader.metadata().file_metadata().schema();
    let Some(field) = root.get_fields().iter().find(|f| f.name() == column).cloned() else {
        return Err(Failure::new(Code::Io, format!("the Parquet file has no column {column}")));
    };
    // A projection is a schema of the same root with only the wanted fields.
    let projection = parquet::schema::types::Type::group_type_builder(root.name())
        .with_fields(vec![field])
        .build()
        .map_err(parquet_failure)?;
    let mut out = Vec::with_capacity(reader.metadata().file_metadata().num_rows().max(0) as usize);
    for row in reader.get_row_iter(Some(projection)).map_err(unreadable)? {
        let row = row.map_err(unreadable)?;
        match row.get_column_iter().next().map(|(_, f)| f) {
            Some(Field::Str(s)) => out.push(Some(s.clone())),
            Some(Field::Null) | None => out.push(None),
            Some(other) => return Err(Failure::new(Code::Io, format!("column {column} is not text ({other})"))),
        }
    }
    Ok(out)
}

/// Bytes read from the head of a transcript to find the compact pair our compressor made: it
/// writes the pair as the file's first records.
const PAIR_HEAD_BYTES: u64 = 256 * 1024;

/// What the `sessions` table needs of each session's own transcript, which an export's estate
/// scan reads from the bytes it holds: its head-and-tail facts without record counts (title,
/// cwd, last activity) and whether it begins with a compact pair this tool made.
pub const SESSION_FACTS: crate::estate::MainFacts = crate::estate::MainFacts {
    head_bytes: PAIR_HEAD_BYTES as usize,
    head_test: crate::archive::history::has_compressor_pair,
};

/// [`SESSION_FACTS`] of one transcript held in memory (an archived one, decoded).
pub fn session_facts_of(bytes: &[u8]) -> (TranscriptFacts, bool) {
    let head = &bytes[..bytes.len().min(SESSION_FACTS.head_bytes)];
    (transcript_facts::facts_of_bytes(bytes, false), (SESSION_FACTS.head_test)(head))
}

#[cfg(test)]
mod tests;
