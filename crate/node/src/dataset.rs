//! The team dataset: Parquet encoding of one partition's rows, and reading the key column of a
//! file another machine wrote (see `claude_jsonl_core::dataset`).

use super::js_error;
use claude_jsonl_core::dataset::{self, estate, schema::ColumnType, schema::Table, Values};
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
    let cols = columns.into_iter().map(values_of).collect::<Result<Vec<_>>>()?;
    Ok(super::job(move || dataset::encode(t, cols).map(Buffer::from)))
}

/// One file of `table` for each of `days` (indices of rows of `columns`, in the order its file
/// holds them), made side by side off the JS thread: the table's columns cross once for all of
/// its days' files.
#[napi(ts_return_type = "Promise<Array<Buffer>>")]
pub fn encode_dataset_days(
    table_name: String,
    columns: Vec<DatasetColumn>,
    days: Vec<Uint32Array>,
) -> Result<AsyncTask<super::Job<Vec<Buffer>>>> {
    let t = table(&table_name)?;
    let cols = columns.into_iter().map(values_of).collect::<Result<Vec<_>>>()?;
    let days: Vec<Vec<u32>> = days.iter().map(|d| d.to_vec()).collect();
    Ok(super::job(move || Ok(dataset::encode_days(t, cols, &days)?.into_iter().map(Buffer::from).collect())))
}

/// A column as it crossed, as the core's values.
fn values_of(c: DatasetColumn) -> Result<(String, Values)> {
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
    Ok((c.name, values))
}

fn column_of(name: String, v: Values) -> DatasetColumn {
    match v {
        Values::Strings(s) => DatasetColumn { strings: Some(s), ..column(name) },
        Values::Joined { text, nulls } => {
            DatasetColumn { joined: Some(text), nulls: Some(Uint8Array::new(nulls)), ..column(name) }
        }
        Values::Numbers(n) => DatasetColumn { numbers: Some(Float64Array::new(n)), ..column(name) },
        Values::Flags(f) => DatasetColumn { flags: Some(Uint8Array::new(f)), ..column(name) },
        text @ Values::Text(_) => column_of(name, text.clone_strings()),
    }
}

fn column(name: String) -> DatasetColumn {
    DatasetColumn { name, strings: None, joined: None, nulls: None, numbers: None, flags: None }
}

/// Every column of `table` read back from the Parquet file in `bytes`.
#[napi]
pub fn decode_dataset_table(table_name: String, bytes: &[u8]) -> Result<Vec<DatasetColumn>> {
    let t = table(&table_name)?;
    let cols = dataset::decode(t, bytes.to_vec()).map_err(js_error)?;
    Ok(cols.into_iter().map(|(name, v)| column_of(name, v)).collect())
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

/// `DatasetSessionFacts` of one transcript held in memory (an archived one, decoded).
#[napi]
pub fn dataset_session_facts_of(bytes: &[u8]) -> DatasetSessionFacts {
    let (facts, ours) = dataset::session_facts_of(bytes);
    DatasetSessionFacts { facts: facts.into(), compressed_by_us: ours }
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

/// What the `sessions` table needs of one main transcript: its head-and-tail facts (records
/// not counted) and whether it begins with a compact pair this tool made.
#[napi(object)]
pub struct DatasetSessionFacts {
    pub facts: super::transcript_facts::TranscriptFactsInfo,
    pub compressed_by_us: bool,
}

/// The `requests` and `tool_calls` rows of an estate scan, held in Rust by day
/// (`claude_jsonl_core::dataset::estate`): the caller reads what the price table needs, adds the
/// cost columns, then asks for each day's file.
#[napi]
pub struct DatasetRows {
    pub(crate) tables: Vec<std::sync::Arc<std::sync::RwLock<estate::TableRows>>>,
    pub(crate) pricing: estate::Pricing,
}

/// What the price table needs of the requests: their price keys (what decides a request's
/// price besides its tokens: model, speed, prompt band and day), and each request's key and
/// tokens, in row order.
#[napi(object)]
pub struct DatasetPricingInputs {
    pub keys: DatasetPriceKeys,
    /// Index of each request's key in `keys`.
    pub key: Uint32Array,
    pub models: Vec<String>,
    /// `usage.speed` as written, null when absent.
    pub speeds: Vec<Option<String>>,
    pub input_tokens: Float64Array,
    pub output_tokens: Float64Array,
    #[napi(js_name = "cacheWrite5mTokens")]
    pub cache_write_5m_tokens: Float64Array,
    #[napi(js_name = "cacheWrite1hTokens")]
    pub cache_write_1h_tokens: Float64Array,
    pub cache_read_input_tokens: Float64Array,
}

/// The price keys, as columns: each one's model (index in `models`), speed (index in
/// `speeds`), prompt band, and its first request's time (ms, NaN when none).
#[napi(object)]
pub struct DatasetPriceKeys {
    pub model: Uint32Array,
    pub speed: Uint32Array,
    pub prompt_band: Uint8Array,
    pub time_ms: Float64Array,
}

/// How the price table prices each price key (one value per key: 0 or 1 for the flags).
#[napi(object)]
pub struct DatasetKeyPricing {
    pub estimated: Uint8Array,
    pub fast: Uint8Array,
    pub long_context: Uint8Array,
    /// The table's model whose rates were used; null when unpriced.
    pub priced_as: Vec<Option<String>>,
}

/// Each session that has requests (its index in the scan's sessions): their count, their cost
/// (summed in row order, unpriced ones left out) and the first one's time (ms; Infinity: none).
#[napi(object)]
pub struct DatasetSessionSums {
    pub session: Uint32Array,
    pub requests: Uint32Array,
    pub cost: Float64Array,
    pub first_ms: Float64Array,
}

/// A day of a table: its name (`YYYY-MM-DD`, `unknown`) and how many rows it has.
#[napi(object)]
pub struct DatasetDay {
    pub day: String,
    pub rows: u32,
}

impl DatasetRows {
    fn of(&self, name: &str) -> Result<std::sync::Arc<std::sync::RwLock<estate::TableRows>>> {
        let t = table(name)?;
        self.tables.iter().find(|r| r.read().map(|r| r.table == t).unwrap_or(false)).cloned().ok_or_else(|| {
            js_error(Failure::new(Code::InvalidArgument, format!("no rows of table {name} in this export")))
        })
    }
}

fn poisoned() -> Error {
    js_error(Failure::new(Code::Internal, "dataset rows: a lock was poisoned"))
}

#[napi]
impl DatasetRows {
    /// The requests' pricing inputs, in row order (the order `addPriced` takes costs in).
    #[napi]
    pub fn pricing_inputs(&self) -> DatasetPricingInputs {
        let p = &self.pricing;
        let keys = &p.keys;
        DatasetPricingInputs {
            keys: DatasetPriceKeys {
                model: Uint32Array::new(keys.iter().map(|k| k.model).collect()),
                speed: Uint32Array::new(keys.iter().map(|k| k.speed).collect()),
                prompt_band: Uint8Array::new(keys.iter().map(|k| k.prompt_band).collect()),
                time_ms: Float64Array::new(keys.iter().map(|k| k.time_ms).collect()),
            },
            key: Uint32Array::new(p.key.clone()),
            models: p.models.clone(),
            speeds: p.speeds.clone(),
            input_tokens: Float64Array::new(p.input.clone()),
            output_tokens: Float64Array::new(p.output.clone()),
            cache_write_5m_tokens: Float64Array::new(p.cache_write_5m.clone()),
            cache_write_1h_tokens: Float64Array::new(p.cache_write_1h.clone()),
            cache_read_input_tokens: Float64Array::new(p.cache_read.clone()),
        }
    }

    /// Adds the requests' cost columns: `cost` of each request in row order (NaN: unpriced),
    /// the rest from its key's `per_key`. Returns each session's sums.
    #[napi]
    pub fn add_priced(&self, cost: Float64Array, per_key: DatasetKeyPricing) -> Result<DatasetSessionSums> {
        let per_key = estate::KeyPricing {
            estimated: per_key.estimated.to_vec(),
            fast: per_key.fast.to_vec(),
            long_context: per_key.long_context.to_vec(),
            priced_as: per_key.priced_as,
        };
        let cost = cost.to_vec();
        // (the columns first: they refuse a pricing of another length before anything is summed)
        let columns = self.pricing.cost_columns(cost.clone(), &per_key).map_err(|e| {
            js_error(Failure::new(Code::InvalidArgument, format!("table requests: the pricing has {e}")))
        })?;
        let sums = self.pricing.session_sums(&cost);
        let rows = self.of("requests")?;
        let mut rows = rows.write().map_err(|_| poisoned())?;
        for (name, values) in columns {
            let column = name.clone();
            rows.set_column(name, values).map_err(|e| {
                js_error(Failure::new(Code::InvalidArgument, format!("table requests: column {column} has {e}")))
            })?;
        }
        Ok(DatasetSessionSums {
            session: Uint32Array::new(sums.session),
            requests: Uint32Array::new(sums.requests),
            cost: Float64Array::new(sums.cost),
            first_ms: Float64Array::new(sums.first_ms),
        })
    }

    /// The days `table` has rows in, ascending.
    #[napi]
    pub fn days(&self, table_name: String) -> Result<Vec<DatasetDay>> {
        let rows = self.of(&table_name)?;
        let rows = rows.read().map_err(|_| poisoned())?;
        Ok(rows.days.iter().map(|(d, r)| DatasetDay { day: d.clone(), rows: r.len() as u32 }).collect())
    }

    /// The rows of `day` of `table`, in the order a part file holds them.
    #[napi]
    pub fn day_columns(&self, table_name: String, day: String) -> Result<Vec<DatasetColumn>> {
        let rows = self.of(&table_name)?;
        let rows = rows.read().map_err(|_| poisoned())?;
        Ok(rows.day(&day).unwrap_or_default().into_iter().map(|(n, v)| column_of(n, v)).collect())
    }

    /// The unique key of every row of `table` (`request_key`, `tool_use_id`), in row order.
    #[napi]
    pub fn keys(&self, table_name: String) -> Result<Vec<String>> {
        let rows = self.of(&table_name)?;
        let rows = rows.read().map_err(|_| poisoned())?;
        let key = rows.table.unique_key().unwrap_or_default();
        Ok(match rows.columns.iter().find(|(n, _)| n == key).map(|(_, v)| v.clone_strings()) {
            Some(Values::Strings(v)) => v.into_iter().map(Option::unwrap_or_default).collect(),
            _ => Vec::new(),
        })
    }

    /// Frees the rows of `table` now, on a thread of their own, instead of on the JS thread
    /// whenever the GC collects this object: freeing a large estate's rows takes tens of
    /// milliseconds. Later calls see the table without rows.
    #[napi]
    pub fn release(&self, table_name: String) -> Result<()> {
        let rows = self.of(&table_name)?;
        let mut rows = rows.write().map_err(|_| poisoned())?;
        let empty = estate::TableRows { table: rows.table, columns: Vec::new(), days: Vec::new() };
        let old = std::mem::replace(&mut *rows, empty);
        std::thread::spawn(move || drop(old));
        Ok(())
    }

    /// Every day's file of `table`, in the order of `days`, made in parallel off the JS thread.
    #[napi(ts_return_type = "Promise<Array<Buffer>>")]
    pub fn encode_days(&self, table_name: String) -> Result<AsyncTask<super::Job<Vec<Buffer>>>> {
        let rows = self.of(&table_name)?;
        Ok(super::job(move || {
            let rows = rows.read().map_err(|_| Failure::new(Code::Internal, "dataset rows: a lock was poisoned"))?;
            Ok(rows.encode_days()?.into_iter().map(Buffer::from).collect())
        }))
    }
}

impl DatasetRows {
    pub(crate) fn new(tables: Vec<estate::TableRows>, pricing: estate::Pricing) -> DatasetRows {
        DatasetRows {
            tables: tables.into_iter().map(|t| std::sync::Arc::new(std::sync::RwLock::new(t))).collect(),
            pricing,
        }
    }
}

/// One file of a `datasetPublish`: its path below the dataset's folder, its bytes, and whether
/// it is its owner's alone (mode 0600; else 0644, less the umask).
#[napi(object)]
pub struct DatasetFile {
    pub path: String,
    pub bytes: Uint8Array,
    pub private: bool,
}

/// Publishes `files` below the dataset folder `root`, each whole or not at all, made durable
/// together (`claude_jsonl_core::durable::publish_batch`), off the JS thread.
#[napi(ts_return_type = "Promise<void>")]
pub fn dataset_publish(root: String, files: Vec<DatasetFile>) -> AsyncTask<super::Job<()>> {
    let files: Vec<claude_jsonl_core::durable::BatchFile> = files
        .into_iter()
        .map(|f| claude_jsonl_core::durable::BatchFile {
            target: f.path.into(),
            bytes: f.bytes.to_vec(),
            mode: if f.private { 0o600 } else { 0o644 },
        })
        .collect();
    super::job(move || claude_jsonl_core::durable::publish_batch(std::path::Path::new(&root), &files, 0o777))
}
