//! The dataset's tables and columns: names, types, whether a column may be null, what it means
//! and the OpenTelemetry GenAI attribute it corresponds to. `docs/dataset.md` is generated from
//! here (`node scripts/dataset-schema.mjs`), and a test fails when it is stale. A change that
//! removes, renames or retypes a column raises `SCHEMA_VERSION`; adding a nullable column does not.

use parquet::schema::parser::parse_message_type;
use parquet::schema::types::Type;

/// The version written into the dataset's `_claude_jsonl/dataset.json`; an export or a query
/// refuses a dataset of another version.
pub const SCHEMA_VERSION: u32 = 1;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ColumnType {
    Utf8,
    Int64,
    Float64,
    Bool,
    /// Milliseconds since the epoch, UTC.
    TimestampMillis,
}

impl ColumnType {
    fn parquet(self) -> &'static str {
        match self {
            ColumnType::Utf8 => "BYTE_ARRAY",
            ColumnType::Int64 => "INT64",
            ColumnType::Float64 => "DOUBLE",
            ColumnType::Bool => "BOOLEAN",
            ColumnType::TimestampMillis => "INT64",
        }
    }
    fn annotation(self) -> &'static str {
        match self {
            ColumnType::Utf8 => " (UTF8)",
            ColumnType::TimestampMillis => " (TIMESTAMP(MILLIS,true))",
            _ => "",
        }
    }
    pub fn sql(self) -> &'static str {
        match self {
            ColumnType::Utf8 => "VARCHAR",
            ColumnType::Int64 => "BIGINT",
            ColumnType::Float64 => "DOUBLE",
            ColumnType::Bool => "BOOLEAN",
            ColumnType::TimestampMillis => "TIMESTAMP WITH TIME ZONE",
        }
    }
}

pub struct Column {
    pub name: &'static str,
    pub ty: ColumnType,
    pub nullable: bool,
    pub meaning: &'static str,
    /// The OpenTelemetry GenAI semantic-convention attribute this column carries, if any.
    pub otel: Option<&'static str>,
    /// Its pages are zstd-compressed. Not for a column zstd does not make smaller, a day's
    /// values being few or dictionary-encoded to a few bytes already: compressing it would cost
    /// a compression context per file and column for nothing ([`Column::stored`]).
    pub zstd: bool,
    /// Its values are dictionary-encoded. Not for an id unique to its row: a dictionary would
    /// hold every value once more, behind an index per row ([`Column::unique`]).
    pub dictionary: bool,
}

const fn col(name: &'static str, ty: ColumnType, nullable: bool, meaning: &'static str) -> Column {
    // (booleans are bit-packed runs: never worth a compressor)
    Column { name, ty, nullable, meaning, otel: None, zstd: !matches!(ty, ColumnType::Bool), dictionary: true }
}
const fn otel(name: &'static str, ty: ColumnType, nullable: bool, meaning: &'static str, attr: &'static str) -> Column {
    Column { name, ty, nullable, meaning, otel: Some(attr), zstd: !matches!(ty, ColumnType::Bool), dictionary: true }
}

impl Column {
    /// The column without compression: measured on a generated 1 GB estate, zstd left each of
    /// these within a few percent of its size or made it larger.
    const fn stored(self) -> Column {
        Column { zstd: false, ..self }
    }

    /// The column of an id unique to its row, plain-encoded.
    const fn unique(self) -> Column {
        Column { dictionary: false, ..self }
    }
}

use ColumnType::*;

const MACHINE: Column =
    col("machine", Utf8, false, "the machine the export ran on (`--machine`, else the host name)").stored();
const PROJECT: Column = col("project", Utf8, false, "the project folder's name (Claude Code's encoding of the cwd)");
const SESSION: Column = otel(
    "session_id",
    Utf8,
    false,
    "the session; a subagent's requests and calls belong to its parent session, as `stats` counts them",
    "gen_ai.conversation.id",
);
const AGENT: Column =
    col("agent_id", Utf8, true, "the subagent whose transcript holds the row; null in the main transcript");

const REQUESTS: &[Column] = &[
    MACHINE,
    PROJECT,
    SESSION,
    AGENT,
    col(
        "request_key",
        Utf8,
        false,
        "what makes the request one: `requestId`, else `message.id`; unique across the dataset",
    )
    .unique(),
    col("request_id", Utf8, true, "`requestId` as written").unique(),
    otel("message_id", Utf8, true, "`message.id` as written", "gen_ai.response.id").unique(),
    otel("model", Utf8, false, "the model that answered", "gen_ai.response.model").stored(),
    col("speed", Utf8, true, "`usage.speed` as written (`standard`, `fast`)").stored(),
    col("service_tier", Utf8, true, "`usage.service_tier` as written").stored(),
    col("timestamp", TimestampMillis, true, "when the counted entry was written"),
    otel("input_tokens", Int64, false, "`usage.input_tokens`", "gen_ai.usage.input_tokens"),
    otel("output_tokens", Int64, false, "`usage.output_tokens`", "gen_ai.usage.output_tokens"),
    otel(
        "cache_creation_input_tokens",
        Int64,
        false,
        "`usage.cache_creation_input_tokens`: every cache write",
        "gen_ai.usage.cache_creation.input_tokens",
    ),
    otel(
        "cache_read_input_tokens",
        Int64,
        false,
        "`usage.cache_read_input_tokens`",
        "gen_ai.usage.cache_read.input_tokens",
    ),
    col(
        "cache_write_5m_tokens",
        Int64,
        false,
        "cache writes at the 5-minute rate (writes without a TTL split included)",
    ),
    col("cache_write_1h_tokens", Int64, false, "cache writes at the 1-hour rate"),
    col("cost_usd", Float64, true, "USD at the package's price table; null when the model is of no known family")
        .stored(),
    col("priced", Bool, false, "the model is priced (cost_usd is not null)"),
    col("price_estimated", Bool, false, "priced at its family's newest rates: the model is not in the table"),
    col("priced_as", Utf8, true, "the price table's model whose rates were used").stored(),
    col("fast", Bool, false, "fast mode (`usage.speed` is `fast`)"),
    col("long_context", Bool, false, "billed at the model's long-context rates"),
];

const SESSIONS: &[Column] = &[
    MACHINE,
    PROJECT,
    SESSION,
    col("cwd", Utf8, true, "the working directory the records name"),
    col("title", Utf8, true, "the title `sessions` shows"),
    // (a day has a few sessions: their numbers are a few bytes each)
    col("first_activity", TimestampMillis, true, "the first request's time").stored(),
    col("last_activity", TimestampMillis, false, "the last record's time, else the file's mtime").stored(),
    col("requests", Int64, false, "requests counted for the session (its subagents' included)").stored(),
    col("cost_usd", Float64, false, "USD of its priced requests").stored(),
    col("compressed_by_us", Bool, false, "the transcript holds a compact pair made by `claude-jsonl compress`"),
    col("bytes", Int64, false, "bytes of the transcript and its subagent transcripts").stored(),
];

const TOOL_CALLS: &[Column] = &[
    MACHINE,
    PROJECT,
    SESSION,
    AGENT,
    otel("tool_use_id", Utf8, false, "the call's `tool_use` id; unique across the dataset", "gen_ai.tool.call.id")
        .unique(),
    col("timestamp", TimestampMillis, true, "when the call was written"),
    otel("model", Utf8, false, "the model whose reply made the call", "gen_ai.response.model").stored(),
    otel("tool", Utf8, false, "the tool's name", "gen_ai.tool.name"),
    col("target", Utf8, true, "what the call was aimed at, as `stats --tools` names it (file, command, host, ...)"),
    col("is_error", Bool, false, "a `tool_result` for the call was written with `is_error: true`"),
];

const MESSAGES: &[Column] = &[
    MACHINE,
    PROJECT,
    SESSION,
    AGENT,
    col("uuid", Utf8, false, "the record's uuid; unique across the dataset").unique(),
    col("timestamp", TimestampMillis, true, "when the record was written"),
    col("role", Utf8, false, "`user` (a person's prompt) or `assistant`"),
    col("text", Utf8, false, "the text said (prompts and replies; no tool traffic)"),
];

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Table {
    Requests,
    Sessions,
    ToolCalls,
    /// Only with `--include-text`.
    Messages,
}

impl Table {
    pub const ALL: [Table; 4] = [Table::Requests, Table::Sessions, Table::ToolCalls, Table::Messages];

    pub fn name(self) -> &'static str {
        match self {
            Table::Requests => "requests",
            Table::Sessions => "sessions",
            Table::ToolCalls => "tool_calls",
            Table::Messages => "messages",
        }
    }

    pub fn from_name(name: &str) -> Option<Table> {
        Table::ALL.into_iter().find(|t| t.name() == name)
    }

    pub fn columns(self) -> &'static [Column] {
        match self {
            Table::Requests => REQUESTS,
            Table::Sessions => SESSIONS,
            Table::ToolCalls => TOOL_CALLS,
            Table::Messages => MESSAGES,
        }
    }

    /// The column that is unique across the dataset's files of this table, if it has one.
    pub fn unique_key(self) -> Option<&'static str> {
        match self {
            Table::Requests => Some("request_key"),
            Table::ToolCalls => Some("tool_use_id"),
            Table::Messages => Some("uuid"),
            Table::Sessions => None,
        }
    }

    /// The date a row is partitioned by, named in the docs.
    pub fn day_of(self) -> &'static str {
        match self {
            Table::Requests | Table::ToolCalls | Table::Messages => {
                "the UTC day of its `timestamp` (`unknown` when it has none)"
            }
            Table::Sessions => "the UTC day of its `first_activity`, else of its `last_activity`",
        }
    }

    pub fn parquet_schema(self) -> parquet::errors::Result<Type> {
        let fields: Vec<String> = self
            .columns()
            .iter()
            .map(|c| {
                format!(
                    "{} {} {}{};",
                    if c.nullable { "OPTIONAL" } else { "REQUIRED" },
                    c.ty.parquet(),
                    c.name,
                    c.ty.annotation()
                )
            })
            .collect();
        parse_message_type(&format!("message {} {{ {} }}", self.name(), fields.join(" ")))
    }
}

/// The schema as Markdown, for `docs/dataset.md`.
pub fn markdown() -> String {
    let mut s = String::new();
    for t in Table::ALL {
        s.push_str(&format!(
            "\n### `{}`\n\nPartitioned by {}.{}\n\n| column | type | null | meaning | OpenTelemetry GenAI |\n| --- | --- | --- | --- | --- |\n",
            t.name(),
            t.day_of(),
            if t == Table::Messages { " Written only with `--include-text`." } else { "" }
        ));
        for c in t.columns() {
            s.push_str(&format!(
                "| `{}` | {} | {} | {} | {} |\n",
                c.name,
                c.ty.sql(),
                if c.nullable { "yes" } else { "no" },
                c.meaning,
                c.otel.map(|o| format!("`{o}`")).unwrap_or_else(|| "—".into())
            ));
        }
    }
    s
}
