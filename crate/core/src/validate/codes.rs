//! The validator's finding codes: one enum, each code with its severity and one line of
//! documentation. `docs/finding-codes.md` is generated from this list
//! (`node scripts/finding-codes.mjs`); a test fails when the committed table is stale.

use super::Severity;

macro_rules! codes {
    ($( $(#[doc = $doc:literal])+ $variant:ident = $name:literal, $severity:ident; )+) => {
        /// A finding code (its `name` is the stable string reports carry).
        #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
        pub enum Code {
            $( $(#[doc = $doc])+ $variant, )+
        }

        impl Code {
            pub const ALL: &'static [Code] = &[$(Code::$variant),+];

            pub fn name(self) -> &'static str {
                match self { $(Code::$variant => $name,)+ }
            }

            pub fn severity(self) -> Severity {
                match self { $(Code::$variant => Severity::$severity,)+ }
            }

            /// The code's documentation line.
            pub fn doc(self) -> &'static str {
                match self { $(Code::$variant => concat!($($doc),+).trim_ascii(),)+ }
            }
        }
    };
}

codes! {
    /// A line is not valid JSON.
    BadJson = "bad-json", Error;
    /// A line is JSON but not an object.
    NonObject = "non-object", Error;
    /// The last line is cut short: a write was interrupted.
    TornTail = "torn-tail", Error;
    /// A record carries one of the compressor's internal planning fields (`summaryIndexes` and the like).
    InternalField = "internal-field", Error;
    /// A uuid is used by more than one record (the client keeps only the last).
    DuplicateUuid = "duplicate-uuid", Error;
    /// `parentUuid` is an empty string, or neither a uuid string nor null.
    MalformedParent = "malformed-parent", Error;
    /// `parentUuid` names no record of the file (the client re-attaches it by timestamp, or the record is cut off).
    DanglingParent = "dangling-parent", Error;
    /// A compact boundary's `logicalParentUuid` names a record of an earlier file.
    LogicalParentOutsideFile = "logical-parent-outside-file", Warning;
    /// A record other than a compact boundary has a `logicalParentUuid` naming no record.
    DanglingLogicalParent = "dangling-logical-parent", Error;
    /// No conversation the client resumes: no user or assistant record, or a subagent's transcript.
    NoConversation = "no-conversation", Error;
    /// Records form a `parentUuid` cycle.
    ParentCycle = "parent-cycle", Error;
    /// The last `last-prompt`'s `leafUuid` names no record of the file.
    PointerUnknown = "pointer-unknown", Error;
    /// The last `last-prompt` names a record with descendants on the chain: the client ignores it.
    PointerStale = "pointer-stale", Warning;
    /// The last `last-prompt` names a record inside one branch: the client resumes there and drops what follows.
    PointerTruncates = "pointer-truncates", Warning;
    /// The chain ends on replies the client drops as it loads the file (blank text, thinking
    /// only): it goes on from the record before them.
    SilentTail = "silent-tail", Warning;
    /// The active chain returns to a session it had left.
    SessionLineageReturns = "session-lineage-returns", Error;
    /// The chain ends in another session than the last `last-prompt`'s.
    SessionMismatch = "session-mismatch", Error;
    /// The file is named after another session than its chain ends in. The client finds a
    /// session by its file name and does not check the records' `sessionId`: it resumes the file
    /// under its name, so this is reported, not an error.
    FileSessionDiffers = "file-session-differs", Warning;
    /// The active chain spans several sessions, one way.
    SessionLineage = "session-lineage", Warning;
    /// Records carry several `sessionId` values.
    MixedSessions = "mixed-sessions", Warning;
    /// A compact boundary has no `isCompactSummary` child.
    CompactBoundaryWithoutSummary = "compact-boundary-without-summary", Error;
    /// A compact boundary has several summary children.
    CompactSummaryMultiple = "compact-summary-multiple", Error;
    /// An `isCompactSummary` record whose parent is not a compact boundary.
    CompactSummaryWithoutBoundary = "compact-summary-without-boundary", Error;
    /// More than one live compact pair on the loaded chain, or more than one made by the compressor.
    MultipleCurrentCompactPairs = "multiple-current-compact-pairs", Error;
    /// The file's last compact boundary or its summary is not on the active chain.
    CompactPairUnreachable = "compact-pair-unreachable", Error;
    /// The current compact summary has no text.
    CompactSummaryEmpty = "compact-summary-empty", Error;
    /// The current boundary's `compactMetadata` (summary uuid, selected leaf) disagrees with the file.
    CompactMetadataMismatch = "compact-metadata-mismatch", Error;
    /// The preserved segment's tail is not on the active chain (a later rewind).
    CompactSegmentDiverged = "compact-segment-diverged", Warning;
    /// `preservedSegment` is broken: wrong anchor, missing head or tail, or a tail that does not reach its head.
    CompactSegmentBroken = "compact-segment-broken", Error;
    /// `preservedMessages.uuids` names records that are not in the file.
    CompactPreservedMissing = "compact-preserved-missing", Error;
    /// Preserved messages are not on the active chain (a later rewind).
    CompactPreservedDiverged = "compact-preserved-diverged", Warning;
    /// An API message with no content block.
    EmptyMessage = "empty-message", Error;
    /// An empty or whitespace-only text block the client sends (it drops the others).
    EmptyTextBlock = "empty-text-block", Error;
    /// An assistant message with thinking does not start with it.
    ThinkingNotFirst = "thinking-not-first", Error;
    /// A `tool_use` block without an id.
    EmptyToolUseId = "empty-tool-use-id", Error;
    /// A `tool_use` id is used more than once in the conversation.
    DuplicateToolUseId = "duplicate-tool-use-id", Error;
    /// The conversation ends on tool calls without results (an interrupted turn; the client adds an error result).
    ToolUsePending = "tool-use-pending", Warning;
    /// One record lists its tool results out of the order of their calls (results written as records of their own follow the order they were written).
    ToolResultOrder = "tool-result-order", Error;
    /// A `tool_use` has no `tool_result` in the next user message.
    ToolUseWithoutResult = "tool-use-without-result", Error;
    /// A `tool_use` has several `tool_result`s.
    DuplicateToolResult = "duplicate-tool-result", Error;
    /// A `tool_result` answers no `tool_use` of the preceding assistant message.
    OrphanToolResult = "orphan-tool-result", Error;
}

impl std::fmt::Display for Code {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}

impl PartialEq<&str> for Code {
    fn eq(&self, other: &&str) -> bool {
        self.name() == *other
    }
}

/// The docs table of codes (`docs/finding-codes.md`).
pub fn markdown_table() -> String {
    let mut out = String::from(
        "<!-- Generated from crate/src/validate/codes.rs by `node scripts/finding-codes.mjs`: do not edit. -->\n\
         # Validator finding codes\n\n\
         Every finding of `claude-jsonl validate` (and of the validation that `compress` runs on its\n\
         candidate) carries one of these codes. An error makes the file invalid; a warning is\n\
         something the real client accepts or repairs that a reader should know about.\n\n\
         | code | severity | meaning |\n| --- | --- | --- |\n",
    );
    for c in Code::ALL {
        out.push_str(&format!("| `{}` | {} | {} |\n", c.name(), c.severity().name(), c.doc()));
    }
    out
}
