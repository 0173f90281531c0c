//! The team dataset: Parquet encoding of one partition's rows, and reading the key column of a
//! file another machine wrote (see `claude_jsonl_core::dataset`).

use super::js_error;
use claude_jsonl_core::dataset::{self, schema::ColumnType, schema::Table, Values};
use claude_jsonl_core::failure::{Code, Failure};
use napi::bindgen_prelude::*;
use napi_derive::napi;

/// One column's values: `strings` for text (null allowed), `numbers` for integers, doubles and
/// timestamps in ms (NaN for null), `flags` for booleans (0 false, 1 true, 2 null).
#[napi(object)]
pub struct DatasetColumn {
    pub name: String,
    pub strings: Option<Vec<Option<String>>>,
    /// Text values joined by NUL, a null as an empty value marked 1 in `nulls` (one string
    /// across instead of one per value; for values that hold no NUL).
    pub joined: Option<String>,
    pub nulls: Option<Uint8Array>,
    pub numbers: Option<Float64Array>,
    pub flags: Option<Uint8Array>,
}

fn table(name: &str) -> Result<Table> {
    Table::from_name(name)
        .ok_or_else(|| js_error(Failure::new(Code::InvalidArgument, format!("no dataset table {name}"))))
}

/// The rows of `table` (every column of its schema) as one zstd-compressed Parquet file, made
/// on the libuv pool (the values are copied out first).
#[napi(ts_return_type = "Promise<Buffer>")]
pub fn encode_dataset_table(table_name: String, columns: Vec<DatasetColumn>) -> Result<AsyncTask<super::Job<Buffer>>> {
    let t = table(&table_name)?;
    let mut cols = Vec::with_capacity(columns.len());
    for c in columns {
        let values = match (c.strings, c.joined, c.nulls, c.numbers, c.flags) {
            (Some(s), None, None, None, None) => Values::Strings(s),
            (None, Some(text), Some(nulls), None, None) => Values::Joined { text, nulls: nulls.to_vec() },
            (None, None, None, Some(n), None) => Values::Numbers(n.to_vec()),
            (None, None, None, None, Some(f)) => Values::Flags(f.to_vec()),
            _ => {
                return Err(js_error(Failure::new(
                    Code::InvalidArgument,
                    format!("column {}: give exactly one of strings, joined with nulls, numbers, flags", c.name),
                )))
            }
        };
        cols.push((c.name, values));
    }
    Ok(super::job(move || dataset::encode(t, cols).map(Buffer::from)))
}

fn column(name: String) -> DatasetColumn {
    DatasetColumn { name, strings: None, joined: None, nulls: None, numbers: None, flags: None }
}

/// Every column of `table` read back from the Parquet file in `bytes`.
#[napi]
pub fn decode_dataset_table(table_name: String, bytes: &[u8]) -> Result<Vec<DatasetColumn>> {
    let t = table(&table_name)?;
    let cols = dataset::decode(t, bytes.to_vec()).map_err(js_error)?;
    Ok(cols
        .into_iter()
        .map(|(name, v)| match v {
            Values::Strings(s) => DatasetColumn { strings: Some(s), ..column(name) },
            Values::Joined { text, nulls } => {
                DatasetColumn { joined: Some(text), nulls: Some(Uint8Array::new(nulls)), ..column(name) }
            }
            Values::Numbers(n) => DatasetColumn { numbers: Some(Float64Array::new(n)), ..column(name) },
            Values::Flags(f) => DatasetColumn { flags: Some(Uint8Array::new(f)), ..column(name) },
        })
        .collect())
}

/// The values of text column `column` of the Parquet file in `bytes`.
#[napi]
pub fn read_dataset_strings(bytes: &[u8], column: String) -> Result<Vec<Option<String>>> {
    dataset::read_strings(bytes.to_vec(), &column).map_err(js_error)
}

/// How a column's values cross: as `strings`, `numbers` or `flags` of a [`DatasetColumn`].
#[napi(string_enum = "lowercase")]
pub enum DatasetValues {
    Strings,
    Numbers,
    Flags,
}

#[napi(object)]
pub struct DatasetColumnInfo {
    pub name: String,
    pub values: DatasetValues,
    pub nullable: bool,
    /// The column's SQL type (`VARCHAR`, `BIGINT`, `DOUBLE`, `BOOLEAN`, `TIMESTAMP WITH TIME ZONE`).
    pub sql_type: String,
}

/// A table of the dataset: its columns in file order, and the column unique across its files.
#[napi(object)]
pub struct DatasetTableInfo {
    pub name: String,
    pub columns: Vec<DatasetColumnInfo>,
    pub unique_key: Option<String>,
}

#[napi]
pub fn dataset_schema_version() -> u32 {
    dataset::schema::SCHEMA_VERSION
}

#[napi]
pub fn dataset_tables() -> Vec<DatasetTableInfo> {
    Table::ALL
        .iter()
        .map(|t| DatasetTableInfo {
            name: t.name().to_string(),
            columns: t
                .columns()
                .iter()
                .map(|c| DatasetColumnInfo {
                    name: c.name.to_string(),
                    values: match c.ty {
                        ColumnType::Utf8 => DatasetValues::Strings,
                        ColumnType::Bool => DatasetValues::Flags,
                        _ => DatasetValues::Numbers,
                    },
                    nullable: c.nullable,
                    sql_type: c.ty.sql().to_string(),
                })
                .collect(),
            unique_key: t.unique_key().map(str::to_string),
        })
        .collect()
}

/// One record's text for the `messages` table.
#[napi(object)]
pub struct DatasetMessage {
    pub uuid: String,
    /// The record's `timestamp`, ms since the epoch; NaN when absent or unreadable.
    pub time_ms: f64,
    /// `user` or `assistant`.
    pub role: String,
    pub text: String,
}

/// `datasetMessages` of a transcript's bytes in memory (an archived one, decoded).
#[napi]
pub fn dataset_messages_of(bytes: &[u8]) -> Vec<DatasetMessage> {
    messages_of(bytes)
}

fn messages_of(bytes: &[u8]) -> Vec<DatasetMessage> {
    dataset::messages::messages(bytes)
        .into_iter()
        .map(|m| DatasetMessage {
            uuid: m.uuid,
            time_ms: m.timestamp_ms.map_or(f64::NAN, |t| t as f64),
            role: m.role,
            text: m.text,
        })
        .collect()
}

/// `datasetCompressedByUs` of one transcript's bytes in memory (an archived one, decoded).
#[napi]
pub fn dataset_compressed_by_us_of(bytes: &[u8]) -> bool {
    dataset::compressed_by_us_in(bytes)
}

/// What a person typed and what the model answered in the transcript at `path`, one entry per
/// record that says something (the search index's rule for text), read off the JS thread.
#[napi(ts_return_type = "Promise<Array<DatasetMessage>>")]
pub fn dataset_messages(path: String) -> AsyncTask<super::Job<Vec<DatasetMessage>>> {
    super::job(move || {
        let bytes =
            std::fs::read(&path).map_err(|e| Failure::at(Code::Io, std::path::Path::new(&path), e.to_string()))?;
        Ok(messages_of(&bytes))
    })
}

/// Per path: the transcript begins with a compact pair this tool's compressor made; false when
/// it cannot be read.
#[napi(ts_return_type = "Promise<Array<boolean>>")]
pub fn dataset_compressed_by_us(paths: Vec<String>) -> AsyncTask<super::Job<Vec<bool>>> {
    super::job(move || Ok(dataset::compressed_by_us(&paths)))
}
