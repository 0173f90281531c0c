// The evidence pack of the model-assisted summary protocol v11. A summarising model reads only
// this pack. It binds itself to its inputs with seven digests, shows every older human prompt
// and assistant text/thinking message in full as an `L<line>` record, every prior compact
// summary as its own record and an optional handoff file as `H<n>` lines (all mandatory: when
// they do not fit both ceilings the pack is refused, never trimmed), then ranked optional
// tool/system evidence while both ceilings allow. The same inputs and options always give the
// same pack, so the manifest that validates a model summary is recomputed at apply time.
import { createHash } from 'node:crypto'
import native from '../native.js'
import type { TranscriptIndex } from '../native.js'
import { ClaudeJsonlError, EXIT, usageError } from '../errors.js'
import { SECTION, SECTION_HEADINGS } from './summary-sections.js'
import { SummaryEntry, SummaryInputs, cutText } from './summary-inputs.js'

export const MODEL_PACK_SCHEMA = 11
export const ENGINE_VERSION = 'v10'
export const DEFAULT_PACK_CHAR_BUDGET = 500000
export const DEFAULT_PACK_TOKEN_BUDGET = 150000
export const MIN_PACK_BUDGET = 10000
/** Optional evidence texts are cut to this many characters. */
const OPTIONAL_TEXT_CHARS = 1200
/** Names the ranking rules below; part of the request digest. */
const RANKING = 'claude-jsonl-rank-1'

export const COMMENT_OPEN = '<!-- claude-jsonl-compressor:model-summary v11'
export const COMMENT_CLOSE = '-->'
export const DIGEST_KEYS = [
  'source_sha256',
  'summary_source_sha256',
  'evidence_anchor_lines_digest',
  'required_anchor_groups_digest',
  'handoff_summary_digest',
  'pack_request_digest',
  'required_claim_sources_digest',
] as const
export type DigestKey = (typeof DIGEST_KEYS)[number]
export const COVERAGE_HEADING = '### Mandatory Evidence Coverage'
export const UNKNOWN_LINE = 'Unknown from provided anchors.'

export interface PackSource {
  /** The whole source transcript, and its index. */
  bytes: Uint8Array
  index: TranscriptIndex
  /** Record indexes summarised, in chain order. */
  summaryIndexes: ArrayLike<number>
  inputs: SummaryInputs
  /** The text of an explicitly supplied handoff file. */
  handoff?: string
  /** SHA-256 of `bytes` when the caller already has it (the plan computes it once). */
  sourceSha256?: string
}

/** How large an evidence pack may grow, and the options it is bound to. */
export interface PackOptions {
  /** Ceiling on the pack in characters (default 500,000, at least 10,000). */
  charBudget?: number
  /** Ceiling on the pack in estimated tokens (default 150,000, at least 10,000). */
  tokenBudget?: number
  /** The selection and policy options that chose the summarised records (topology, cut,
   * budgets), bound into the request digest so a summary cannot be applied under others. */
  policy?: Record<string, unknown>
}

export interface AnchorGroup {
  id: string
  anchors: string[]
}

/**
 * What a pack holds, for checking a summary written from it: its digests, the anchors it shows,
 * the mandatory excerpts and the groups a summary must cover, and its size.
 */
export interface PackManifest {
  digests: Record<DigestKey, string>
  /** Every anchor shown in the pack (`L12`, `H3`). */
  visibleAnchors: Set<string>
  /** Physical lines of the summarised records. */
  summaryLines: Set<number>
  /** Lines in the source file. */
  sourceLines: number
  handoffLines: number
  requiredGroups: AnchorGroup[]
  /** Mandatory anchor → the full text a coverage excerpt must be an exact substring of. */
  mandatory: Map<string, string>
  optional: { total: number; included: number; truncated: boolean; omittedDigest: string }
  chars: number
  estimatedTokens: number
  charBudget: number
  tokenBudget: number
}

/** An evidence pack: the text a model summarises a session's older records from, and its manifest. */
export interface Pack {
  text: string
  manifest: PackManifest
}

const sha256 = (data: string | Uint8Array) => createHash('sha256').update(data).digest('hex')

/** The budgets, defaulted and checked against their minimums (a usage error otherwise). */
export function packBudgets(opts: PackOptions): { charBudget: number; tokenBudget: number } {
  const charBudget = opts.charBudget ?? DEFAULT_PACK_CHAR_BUDGET
  const tokenBudget = opts.tokenBudget ?? DEFAULT_PACK_TOKEN_BUDGET
  if (!Number.isInteger(charBudget) || charBudget < MIN_PACK_BUDGET)
    throw usageError(`--model-pack-char-budget must be an integer of at least ${MIN_PACK_BUDGET}`)
  if (!Number.isInteger(tokenBudget) || tokenBudget < MIN_PACK_BUDGET)
    throw usageError(`--model-pack-estimated-token-budget must be an integer of at least ${MIN_PACK_BUDGET}`)
  return { charBudget, tokenBudget }
}

interface Semantic {
  anchor: string
  line: number
  cls: string
  text: string
  entry: SummaryEntry
}

/** The mandatory text of an entry: a human prompt, or its thinking and text joined. */
function semanticOf(e: SummaryEntry): Semantic | undefined {
  const base = { anchor: `L${e.line}`, line: e.line, entry: e }
  if (e.priorSummary !== undefined && e.priorSummary.trim() !== '')
    return { ...base, cls: 'prior-compact-summary', text: e.priorSummary }
  if (e.human !== undefined) return { ...base, cls: 'human-prompt', text: e.human }
  if (e.apiError !== undefined) return undefined
  const parts = [...e.thinking, ...e.texts]
  if (parts.length === 0) return undefined
  const cls =
    e.thinking.length && e.texts.length
      ? 'assistant-thinking-and-text'
      : e.thinking.length
        ? 'assistant-thinking'
        : 'assistant-text'
  return { ...base, cls, text: parts.join('\n\n') }
}

function fields(e: SummaryEntry): string {
  return [
    `type=${e.type ?? '?'}`,
    e.role ? `role=${e.role}` : '',
    e.timestamp ? `ts=${e.timestamp}` : '',
    e.uuid ? `uuid=${e.uuid}` : '',
  ]
    .filter(Boolean)
    .join(' ')
}

interface Optional {
  anchor: string
  line: number
  score: number
  text: string
  tool: boolean
}

const IDENTIFYING_TOOLS = new Set(['Edit', 'Write', 'MultiEdit', 'NotebookEdit', 'TodoWrite'])

/** Optional evidence lines, scored by the protocol's priorities (higher first). */
function optionalEvidence(inputs: SummaryInputs): Optional[] {
  const out: Optional[] = []
  const n = Math.max(1, inputs.entries.length)
  const seenInputs = new Set<string>()
  const toolNames = new Map<string, string>()
  const validation = new Set(inputs.commands.filter((c) => c.validation).map((c) => c.toolUseId))
  inputs.entries.forEach((e, i) => {
    const recency = (10 * i) / n
    const anchor = `L${e.line}`
    const head = `- ${anchor} ${fields(e)}`
    for (const c of e.toolCalls) {
      toolNames.set(c.id, c.name)
      const repeated = seenInputs.has(c.name + c.inputJson)
      seenInputs.add(c.name + c.inputJson)
      const base = IDENTIFYING_TOOLS.has(c.name) ? 45 : validation.has(c.id) ? 50 : 30
      out.push({
        anchor,
        line: e.line,
        tool: true,
        score: base + recency - (repeated ? 20 : 0),
        text: `${head} evidence_class=tool-use tool=${c.name} input_json=${JSON.stringify(cutText(c.inputJson, OPTIONAL_TEXT_CHARS))}`,
      })
    }
    for (const r of e.toolResults) {
      const name = toolNames.get(r.toolUseId) ?? r.name
      const failed = r.isError || (r.exitCode !== undefined && r.exitCode !== 0)
      const base = failed ? 50 : 20 - (r.chars > 5000 ? 5 : 0)
      const flags = [
        name ? `tool=${name}` : '',
        `is_error=${r.isError}`,
        r.exitCode !== undefined ? `exit_code=${r.exitCode}` : '',
        `chars=${r.chars}`,
      ]
        .filter(Boolean)
        .join(' ')
      out.push({
        anchor,
        line: e.line,
        tool: true,
        score: base + recency,
        text: `${head} evidence_class=tool-result ${flags} text_json=${JSON.stringify(cutText(r.text, OPTIONAL_TEXT_CHARS))}`,
      })
    }
    if (e.apiError !== undefined)
      out.push({
        anchor,
        line: e.line,
        tool: false,
        score: 50 + recency,
        text: `${head} evidence_class=api-error text_json=${JSON.stringify(cutText(e.apiError, OPTIONAL_TEXT_CHARS))}`,
      })
    else if (e.meta !== undefined)
      out.push({
        anchor,
        line: e.line,
        tool: false,
        score: 35 + recency,
        text: `${head} evidence_class=injected-context text_json=${JSON.stringify(cutText(e.meta, OPTIONAL_TEXT_CHARS))}`,
      })
    else if (e.type === 'system' && e.systemText)
      out.push({
        anchor,
        line: e.line,
        tool: false,
        score: 25 + recency,
        text: `${head} subtype=${e.subtype ?? '?'} evidence_class=system text_json=${JSON.stringify(cutText(e.systemText, OPTIONAL_TEXT_CHARS))}`,
      })
  })
  return out.sort((a, b) => b.score - a.score || a.line - b.line || (a.text < b.text ? -1 : 1))
}

/** Early, middle and late thirds of `anchors` (empty thirds left out). */
function thirds(anchors: string[], prefix = 'temporal'): AnchorGroup[] {
  const cut = (k: number) => Math.floor((anchors.length * k) / 3)
  return ['early', 'middle', 'late']
    .map((name, k) => ({ id: `${prefix}-${name}`, anchors: anchors.slice(cut(k), cut(k + 1)) }))
    .filter((g) => g.anchors.length > 0)
}

function handoffGroups(count: number): AnchorGroup[] {
  if (count === 0) return []
  const all = Array.from({ length: count }, (_, i) => `H${i + 1}`)
  return [...thirds(all, 'handoff'), { id: 'handoff-latest', anchors: [all[count - 1]] }]
}

const byLine = (a: string, b: string) =>
  a[0] === b[0] ? Number(a.slice(1)) - Number(b.slice(1)) : a[0] < b[0] ? -1 : 1

function instructions(): string {
  return [
    '## Instructions',
    '',
    'You are writing the summary that replaces the older part of a Claude Code session, so that the session can continue from it. You can read only this pack: cite what you use by its anchor (`L<n>` for a record of SOURCE_JSONL, `H<n>` for a handoff line). Write in the language the user used.',
    '',
    '- Current state first: what the user last asked for, what is done, what is in progress, and the latest todo list.',
    '- Keep the chronology. When a later message changes or reverses an earlier one, say so and cite both; never present a superseded decision as current.',
    '- Give decisions with their reasons, the research conclusions and rationale of the assistant, and the options that were rejected or superseded and why.',
    "- Quote the user's own wording for requests, constraints and preferences.",
    '- Keep exact identifiers (files, commands, ids, versions, error messages) and validation results.',
    '- Name unresolved risks and open questions. Where the anchors do not tell, write the exact line `' +
      UNKNOWN_LINE +
      '`.',
    '- The recent raw conversation follows your summary verbatim; end with the boundary to it (the last summarised anchors).',
    '',
  ].join('\n')
}

function outputRules(comment: string): string {
  return [
    '## Required Output',
    '',
    'Begin your answer with exactly this comment, copied verbatim as its first lines:',
    '',
    comment,
    '',
    'Then use exactly these nine headings, in this order, and no other heading except the one subsection named below; each section cites at least one anchor:',
    '',
    ...SECTION_HEADINGS.map((h) => `## ${h}`),
    '',
    `Under \`## ${SECTION_HEADINGS[SECTION.evidence]}\` include exactly one \`${COVERAGE_HEADING}\` subsection with exactly one line per mandatory anchor (every record under "Mandatory Semantic Records" and "Prior Compact Summaries"), in this exact form, where the JSON string is an exact, meaningful excerpt of that record's full_text_json text:`,
    '',
    '- L42 support_text_json="exact excerpt of record L42" disposition=covered',
    '',
    'Rules: every line with words cites at least one anchor shown in this pack (the only exception is the exact line `' +
      UNKNOWN_LINE +
      '`); cite at least one anchor of every required group; no other HTML comment; no statement that you cannot access files or the conversation (this pack is all you need); at least 800 characters.',
    '',
  ].join('\n')
}

function commentOf(digests: Record<DigestKey, string>): string {
  return [COMMENT_OPEN, ...DIGEST_KEYS.map((k) => `${k}: ${digests[k]}`), COMMENT_CLOSE].join('\n')
}

/** The summarised records' bytes, one per line, hashed: what the pack is a summary request for. */
function summarisedDigest(src: PackSource): string {
  const offsets = src.index.offsets()
  const lengths = src.index.lengths()
  const summarised = createHash('sha256')
  for (const i of Array.from(src.summaryIndexes)) {
    summarised.update(src.bytes.subarray(offsets[i], offsets[i] + lengths[i]))
    summarised.update('\n')
  }
  return summarised.digest('hex')
}

/** The mandatory half of the pack: every semantic record in full, prior summaries, the handoff. */
function mandatorySection(ledger: Semantic[], priors: Semantic[], handoffLines: string[]): string {
  const record = (s: Semantic) =>
    `- ${s.anchor} ${fields(s.entry)} evidence_class=${s.cls} chars=${s.text.length} full_text_json=${JSON.stringify(s.text)}`
  return [
    '## Mandatory Semantic Records',
    '',
    ...(ledger.length ? ledger.map(record) : ['(none)']),
    '',
    '## Prior Compact Summaries',
    '',
    ...(priors.length ? priors.map(record) : ['(none)']),
    '',
    '## Handoff',
    '',
    ...(handoffLines.length
      ? handoffLines.map((l, i) => `- H${i + 1} full_text_json=${JSON.stringify(l)}`)
      : ['(none)']),
    '',
  ].join('\n')
}

/** What the pack's frame is made of besides its digests, groups and optional lines. */
interface PackParts {
  inputs: SummaryInputs
  sourceLines: number
  mandatoryText: string
}

/** The whole pack text around the optional evidence lines. */
function packFrame(
  parts: PackParts,
  digests: Record<DigestKey, string>,
  groups: AnchorGroup[],
  optionalLines: string[],
  status: string,
): string {
  const { inputs, sourceLines, mandatoryText } = parts
  return [
    '# claude-jsonl model-summary evidence pack (protocol v11)',
    '',
    `SOURCE_JSONL: the transcript being compressed (its name and location are withheld). Summarised records: ${inputs.entries.length}, lines L${inputs.firstLine}–L${inputs.lastLine} of ${sourceLines}.`,
    status,
    '',
    instructions(),
    outputRules(commentOf(digests)),
    '## Required Anchor Groups',
    '',
    ...groups.map((g) => `- group ${g.id} (cite at least one): ${g.anchors.join(' ')}`),
    '- Every anchor under "Mandatory Semantic Records" and "Prior Compact Summaries" is also its own required group.',
    '',
    mandatoryText,
    '## Optional Evidence',
    '',
    ...(optionalLines.length ? optionalLines : ['(none)']),
    '',
  ].join('\n')
}

/**
 * The optional evidence that fits after `used` characters and tokens, taken in rank order (a
 * tool anchor's first citation costs its own group entry too), then put in line order; with
 * the anchors left out and the source-tool anchors cited.
 */
function takeOptional(
  candidates: Optional[],
  used: { chars: number; tokens: number },
  budgets: { charBudget: number; tokenBudget: number },
): { taken: Optional[]; omitted: string[]; toolAnchors: Set<string> } {
  let { chars, tokens } = used
  const taken: Optional[] = []
  const omitted: string[] = []
  const toolAnchors = new Set<string>()
  for (const c of candidates) {
    const anchorCost = c.tool && !toolAnchors.has(c.anchor) ? c.anchor.length + 1 : 0
    const cost = c.text.length + 1 + anchorCost
    const cTokens = native.estimateTextTokens(c.text) + 0.25 * (1 + anchorCost)
    // A small token margin absorbs float rounding between these sums and the final estimate.
    if (chars + cost > budgets.charBudget || tokens + cTokens > budgets.tokenBudget - 0.01) {
      omitted.push(c.anchor)
      continue
    }
    chars += cost
    tokens += cTokens
    taken.push(c)
    if (c.tool) toolAnchors.add(c.anchor)
  }
  taken.sort((a, b) => a.line - b.line || (a.text < b.text ? -1 : 1))
  return { taken, omitted, toolAnchors }
}

/** What was asked of the pack (protocol, engine, ranking, budgets, which lines, the handoff,
 * the policy), as the string its digest is taken of. */
function packRequest(
  opts: PackOptions,
  budgets: { charBudget: number; tokenBudget: number },
  summaryLines: Set<number>,
  handoffDigest: string,
): string {
  return JSON.stringify({
    protocol: MODEL_PACK_SCHEMA,
    engine: ENGINE_VERSION,
    ranking: RANKING,
    charBudget: budgets.charBudget,
    tokenBudget: budgets.tokenBudget,
    optionalTextChars: OPTIONAL_TEXT_CHARS,
    summaryLines: sha256([...summaryLines].join(',')),
    handoff: handoffDigest,
    policy: opts.policy ?? {},
  })
}

/** The anchor groups a summary must cite whatever optional evidence is shown: the thirds of the
 * semantic records, the user's prompts, the assistant's messages, the handoff. */
function fixedGroupsOf(semanticAnchors: string[], ledger: Semantic[], handoffLines: number): AnchorGroup[] {
  const humanAnchors = ledger.filter((s) => s.cls === 'human-prompt').map((s) => s.anchor)
  const assistantAnchors = ledger.filter((s) => s.cls !== 'human-prompt').map((s) => s.anchor)
  return [
    ...thirds(semanticAnchors),
    ...(humanAnchors.length ? [{ id: 'human-user', anchors: humanAnchors }] : []),
    ...(assistantAnchors.length ? [{ id: 'assistant-research', anchors: assistantAnchors }] : []),
    ...handoffGroups(handoffLines),
  ]
}

/**
 * Builds the pack; throws (exit 1) when the mandatory evidence does not fit both ceilings. The
 * frame is sized first with digest-sized placeholders, the optional evidence fills what is left,
 * then the digests of what is shown are filled in.
 */
export function buildPack(src: PackSource, opts: PackOptions = {}): Pack {
  const { charBudget, tokenBudget } = packBudgets(opts)
  const { inputs } = src
  const summaryLines = new Set(inputs.entries.map((e) => e.line))
  const sourceLines = src.index.summary().lines
  const semantic = inputs.entries.map(semanticOf).filter((s): s is Semantic => s !== undefined)
  const priors = semantic.filter((s) => s.cls === 'prior-compact-summary')
  const ledger = semantic.filter((s) => s.cls !== 'prior-compact-summary')
  const handoffLines = src.handoff === undefined ? [] : src.handoff.replace(/\r?\n$/, '').split(/\r?\n/)
  const handoffDigest = src.handoff === undefined ? 'none' : sha256(src.handoff)

  const mandatory = new Map(semantic.map((s) => [s.anchor, s.text]))
  const claimSources = JSON.stringify([...mandatory].map(([a, t]) => [a, sha256(t)]))
  const parts: PackParts = { inputs, sourceLines, mandatoryText: mandatorySection(ledger, priors, handoffLines) }

  const semanticAnchors = semantic.map((s) => s.anchor)
  const fixedGroups = fixedGroupsOf(semanticAnchors, ledger, handoffLines.length)
  const est = (s: string) => native.estimateTextTokens(s)
  const statusLine = (included: number, total: number, truncated: boolean, omitted: string) =>
    `optional_evidence: included=${included} of ${total} truncated=${truncated ? 'yes' : 'no'} omitted_digest=${omitted}; ceilings: ${charBudget} characters, ${tokenBudget} estimated tokens.`

  // Everything but the optional evidence, with digest-sized placeholders (64 hex characters;
  // 'none' for an absent handoff) so that the sizes are final.
  const placeholder = Object.fromEntries(
    DIGEST_KEYS.map((k) => [k, k === 'handoff_summary_digest' ? handoffDigest : '0'.repeat(64)]),
  ) as Record<DigestKey, string>
  const candidates = optionalEvidence(inputs)
  const latestReserve = `- group latest-evidence (cite at least one): L${sourceLines} L${sourceLines} L${sourceLines}\n- group source-tool (cite at least one): \n`
  const base =
    packFrame(
      parts,
      placeholder,
      fixedGroups,
      [],
      statusLine(candidates.length, candidates.length, true, '0'.repeat(64)),
    ) + latestReserve
  const used = { chars: base.length, tokens: est(base) }
  if (used.chars > charBudget || used.tokens > tokenBudget) {
    throw new ClaudeJsonlError(
      `model pack: the mandatory evidence (every older human prompt and assistant text/thinking message, prior summaries, handoff) needs ${used.chars} characters and ${Math.ceil(used.tokens)} estimated tokens, over the ceilings of ${charBudget} characters (--model-pack-char-budget) and ${tokenBudget} estimated tokens (--model-pack-estimated-token-budget); raise them only if the summarising model can read a pack that large`,
      EXIT.flagged,
    )
  }
  const { taken, omitted, toolAnchors } = takeOptional(candidates, used, { charBudget, tokenBudget })

  const visible = new Set<string>([
    ...semanticAnchors,
    ...taken.map((c) => c.anchor),
    ...handoffLines.map((_, i) => `H${i + 1}`),
  ])
  const lAnchors = [...visible].filter((a) => a[0] === 'L').sort(byLine)
  const groups: AnchorGroup[] = [
    ...fixedGroups,
    ...(toolAnchors.size ? [{ id: 'source-tool', anchors: [...toolAnchors].sort(byLine) }] : []),
    ...(lAnchors.length ? [{ id: 'latest-evidence', anchors: lAnchors.slice(-3) }] : []),
  ]
  const allGroups = [...groups, ...semantic.map((s) => ({ id: `mandatory-${s.anchor}`, anchors: [s.anchor] }))]
  const truncated = omitted.length > 0
  const omittedDigest = sha256(omitted.join(','))
  const digests: Record<DigestKey, string> = {
    source_sha256: src.sourceSha256 || sha256(src.bytes),
    summary_source_sha256: summarisedDigest(src),
    evidence_anchor_lines_digest: sha256([...visible].sort(byLine).join('\n')),
    required_anchor_groups_digest: sha256(JSON.stringify(allGroups)),
    handoff_summary_digest: handoffDigest,
    pack_request_digest: sha256(packRequest(opts, { charBudget, tokenBudget }, summaryLines, handoffDigest)),
    required_claim_sources_digest: sha256(claimSources),
  }
  const text = packFrame(
    parts,
    digests,
    groups,
    taken.map((c) => c.text),
    statusLine(taken.length, candidates.length, truncated, omittedDigest),
  )
  const estimatedTokens = est(text)
  if (text.length > charBudget || estimatedTokens > tokenBudget) {
    // The accounting above is exact up to float rounding; a pack that still overflows is a bug.
    throw new ClaudeJsonlError(
      `model pack: internal budget accounting error (${text.length} chars, ${estimatedTokens} tokens)`,
      EXIT.internal,
    )
  }
  return {
    text,
    manifest: {
      digests,
      visibleAnchors: visible,
      summaryLines,
      sourceLines,
      handoffLines: handoffLines.length,
      requiredGroups: allGroups,
      mandatory,
      optional: { total: candidates.length, included: taken.length, truncated, omittedDigest },
      chars: text.length,
      estimatedTokens,
      charBudget,
      tokenBudget,
    },
  }
}
