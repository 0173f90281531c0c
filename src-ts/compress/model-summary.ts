// Checking a model-written summary against the pack it was written from (protocol v11), and
// composing the final compact summary text. Every rejection names the rule it breaks in one
// line. An accepted model text is never cut: when it does not fit the budget with the
// deterministic safety appendix, that is an error.
import { ClaudeJsonlError, EXIT, usageError } from '../errors.js'
import {
  CONTINUATION_PREAMBLE,
  DEFAULT_SUMMARY_CHAR_BUDGET,
  MIN_SUMMARY_CHAR_BUDGET,
  deterministicSummary,
} from './deterministic-summary.js'
import { SECTION, SECTION_HEADINGS } from './summary-sections.js'
import {
  COMMENT_CLOSE,
  COMMENT_OPEN,
  COVERAGE_HEADING,
  DIGEST_KEYS,
  DigestKey,
  PackManifest,
  UNKNOWN_LINE,
} from './pack.js'
import type { SummaryInputs } from './summary-inputs.js'

export type ModelSummaryRule =
  | 'non-blank'
  | 'metadata-comment'
  | 'digest'
  | 'html-comment'
  | 'min-length'
  | 'boilerplate'
  | 'headings'
  | 'anchor-range'
  | 'anchor-visible'
  | 'unanchored-line'
  | 'section-anchor'
  | 'coverage'
  | 'required-group'

/**
 * A model-written summary that breaks one of the rules a summary must meet (its anchors, coverage,
 * digest, length, ...); `rule` names which. Exit code 3.
 */
export class ModelSummaryError extends ClaudeJsonlError {
  constructor(
    /** The rule the summary breaks. */
    readonly rule: ModelSummaryRule,
    detail: string,
  ) {
    super(`model summary rejected (rule ${rule}): ${detail}`, EXIT.input)
  }
}

export const MIN_MODEL_SUMMARY_CHARS = 800
const ANCHOR = /\b([LH])(\d+)\b/g
const HAS_ANCHOR = /\b[LH]\d+\b/
const HEADING = /^ {0,3}#{1,6}(?:\s|$)/
const SUBSTANTIVE = /[\p{L}\p{N}]/u
const COVERAGE_LINE = /^- (L\d+) support_text_json=("(?:[^"\\]|\\.)*") disposition=covered$/
const BOILERPLATE =
  /\b(?:I (?:do not|don't|cannot|can't|can ?not) (?:have )?access|I(?:'m| am) (?:unable|not able) to (?:access|read|see|view|open)|(?:no|without) access to (?:the|your|this)|as an AI\b|I(?:'m| am) sorry,? but|I apologi[sz]e,? but|I cannot (?:help|assist) with|I can't (?:help|assist) with)/i

export interface AcceptedModelSummary {
  /** The summary without its leading metadata comment. */
  body: string
  cited: Set<string>
}

const excerpt = (s: string) => JSON.stringify(s.length > 60 ? s.slice(0, 60) + '…' : s)

/** Throws the rule broken, with what the summary has and what it should. */
function fail(rule: ModelSummaryRule, detail: string): never {
  throw new ModelSummaryError(rule, detail)
}

/** Where the summary's body lines begin: after the leading metadata comment. */
interface Body {
  lines: string[]
  /** The index of the comment's closing line in the whole text (body line i is text line close + 2 + i). */
  close: number
}

/**
 * Checks `text` by every rule of protocol v11 against `manifest`; throws ModelSummaryError. In
 * order: the leading metadata comment and its digests, the body's text (no second comment, the
 * minimum length, no refusal boilerplate), the headings, the anchors, the coverage lines, the
 * required groups.
 */
export function validateModelSummary(text: string, manifest: PackManifest): AcceptedModelSummary {
  const src = text.replace(/^\uFEFF/, '').replace(/\r\n/g, '\n')
  if (src.trim() === '') fail('non-blank', 'the summary is empty')
  const lines = src.split('\n')
  const close = checkMetadataComment(lines, manifest)
  const b: Body = { lines: lines.slice(close + 1), close }
  const body = b.lines.join('\n')
  checkBodyText(src, body, b)
  const { sectionOf, coverageAt } = checkHeadings(b)
  const cited = checkAnchors(b, sectionOf, coverageAt, manifest)
  checkCoverage(b, sectionOf, coverageAt, manifest)
  checkRequiredGroups(manifest, cited)
  return { body: body.replace(/^\n+/, '').replace(/\s+$/, ''), cited }
}

/** The leading comment: the exact opening and closing lines, every digest key once, in the
 * pack's order, each with the pack's value. Returns the closing line's index. */
function checkMetadataComment(lines: string[], manifest: PackManifest): number {
  if (lines[0] !== COMMENT_OPEN)
    fail('metadata-comment', `the summary must begin with the exact line ${excerpt(COMMENT_OPEN)} copied from the pack`)
  const close = lines.indexOf(COMMENT_CLOSE)
  if (close < 0)
    fail('metadata-comment', `the leading metadata comment is not closed by a line ${excerpt(COMMENT_CLOSE)}`)
  const seen = new Map<string, string>()
  for (let i = 1; i < close; i++) {
    const m = /^([a-z0-9_]+): (\S+)$/.exec(lines[i])
    if (!m) fail('metadata-comment', `line ${i + 1} of the metadata comment is not "key: value": ${excerpt(lines[i])}`)
    const [, key, value] = m as RegExpExecArray
    if (!(DIGEST_KEYS as readonly string[]).includes(key))
      fail('metadata-comment', `unknown metadata key '${key}' at line ${i + 1}`)
    if (seen.has(key)) fail('metadata-comment', `metadata key '${key}' appears twice`)
    seen.set(key, value)
  }
  DIGEST_KEYS.forEach((key, k) => {
    if (!seen.has(key)) fail('metadata-comment', `metadata key '${key}' is missing`)
    if ([...seen.keys()][k] !== key)
      fail('metadata-comment', `metadata keys are not in the pack's order ('${key}' is not key ${k + 1})`)
    if (seen.get(key) !== manifest.digests[key as DigestKey])
      fail(
        'digest',
        `${key} is ${seen.get(key)}, the pack's is ${manifest.digests[key as DigestKey]}: the summary was written from another pack, or the source, options or handoff changed`,
      )
  })
  return close
}

/** No second HTML comment, the minimum length, no refusal or no-access boilerplate. */
function checkBodyText(src: string, body: string, { lines: bodyLines, close }: Body): void {
  bodyLines.forEach((l, i) => {
    if (l.includes('<!--') || l.includes('-->'))
      fail(
        'html-comment',
        `line ${close + 2 + i} opens or closes a second HTML comment; only the leading metadata comment is allowed`,
      )
  })
  if (src.length < MIN_MODEL_SUMMARY_CHARS)
    fail('min-length', `the summary has ${src.length} characters; at least ${MIN_MODEL_SUMMARY_CHARS} are required`)
  const boiler = BOILERPLATE.exec(body)
  if (boiler)
    fail(
      'boilerplate',
      `refusal or no-access boilerplate ${excerpt(boiler[0])}: the pack holds all the evidence the summary needs`,
    )
}

/** The nine sections in order, and the coverage subsection inside Evidence; returns each body
 * line's section and where the coverage subsection begins. */
function checkHeadings({ lines: bodyLines, close }: Body): { sectionOf: number[]; coverageAt: number } {
  const evidence = SECTION.evidence
  const sectionOf: number[] = []
  let section = -1
  let coverageAt = -1
  bodyLines.forEach((l, i) => {
    const at = close + 2 + i
    const setext =
      /^ {0,3}(=+|-+)\s*$/.test(l) && i > 0 && bodyLines[i - 1].trim() !== '' && !HEADING.test(bodyLines[i - 1])
    if (setext) fail('headings', `line ${at} underlines the line above into an extra heading`)
    if (HEADING.test(l)) {
      const t = l.trim()
      const next = SECTION_HEADINGS[section + 1]
      if (next !== undefined && t === `## ${next}`) section++
      else if (t === COVERAGE_HEADING && section === evidence && coverageAt < 0) coverageAt = i
      else if (t === COVERAGE_HEADING)
        fail(
          'headings',
          coverageAt >= 0
            ? `a second ${COVERAGE_HEADING} at line ${at}`
            : `${COVERAGE_HEADING} at line ${at} is not under ## ${SECTION_HEADINGS[evidence]}`,
        )
      else {
        const known = SECTION_HEADINGS.findIndex((h) => t === `## ${h}`)
        if (known >= 0)
          fail(
            'headings',
            `"## ${SECTION_HEADINGS[known]}" at line ${at} is out of order or repeated (expected "## ${next ?? '(no more sections)'}")`,
          )
        fail(
          'headings',
          `extra or renamed heading ${excerpt(t)} at line ${at}; only the nine section headings and ${COVERAGE_HEADING} are allowed`,
        )
      }
    }
    sectionOf.push(section)
  })
  if (section < SECTION_HEADINGS.length - 1)
    fail('headings', `section "## ${SECTION_HEADINGS[section + 1]}" is missing`)
  if (coverageAt < 0) fail('coverage', `no ${COVERAGE_HEADING} subsection under ## ${SECTION_HEADINGS[evidence]}`)

  return { sectionOf, coverageAt }
}

/** Every anchor in range, summarised and shown in the pack; every line that states something
 * anchored; every section citing one. Returns the anchors cited. */
function checkAnchors(
  { lines: bodyLines, close }: Body,
  sectionOf: number[],
  coverageAt: number,
  manifest: PackManifest,
): Set<string> {
  const evidence = SECTION.evidence
  const cited = new Set<string>()
  const sectionAnchors = new Set<number>()
  bodyLines.forEach((l, i) => {
    const at = close + 2 + i
    // A coverage line's excerpt is source text: only its leading anchor is a citation.
    const coverage = i > coverageAt && sectionOf[i] === evidence ? COVERAGE_LINE.exec(l) : null
    for (const m of (coverage ? `- ${coverage[1]}` : l).matchAll(ANCHOR)) {
      const a = m[0]
      const n = Number(m[2])
      if (m[1] === 'L') {
        if (n < 1 || n > manifest.sourceLines)
          fail('anchor-range', `${a} at line ${at} is outside the source's lines 1–${manifest.sourceLines}`)
        if (!manifest.summaryLines.has(n)) fail('anchor-visible', `${a} at line ${at} is not a summarised record`)
      } else if (n < 1 || n > manifest.handoffLines)
        fail('anchor-range', `${a} at line ${at} is outside the handoff's lines 1–${manifest.handoffLines}`)
      if (!manifest.visibleAnchors.has(a)) fail('anchor-visible', `${a} at line ${at} is not shown in the pack`)
      cited.add(a)
      sectionAnchors.add(sectionOf[i])
    }
    const t = l.trim()
    if (t === '' || HEADING.test(l) || t === UNKNOWN_LINE) return
    if (SUBSTANTIVE.test(t) && !HAS_ANCHOR.test(t))
      fail(
        'unanchored-line',
        `line ${at} states something without an L/H anchor: ${excerpt(t)} (the only unanchored line allowed is exactly ${excerpt(UNKNOWN_LINE)})`,
      )
  })
  SECTION_HEADINGS.forEach((h, k) => {
    if (!sectionAnchors.has(k)) fail('section-anchor', `section "## ${h}" cites no L or H anchor`)
  })

  return cited
}

/** Mandatory Evidence Coverage: one exact excerpt per mandatory anchor. */
function checkCoverage(
  { lines: bodyLines, close }: Body,
  sectionOf: number[],
  coverageAt: number,
  manifest: PackManifest,
): void {
  const evidence = SECTION.evidence
  const covered = new Set<string>()
  for (let i = coverageAt + 1; i < bodyLines.length && sectionOf[i] === evidence; i++) {
    const l = bodyLines[i]
    const at = close + 2 + i
    if (l.trim() === '') continue
    const m = COVERAGE_LINE.exec(l)
    if (!m)
      fail(
        'coverage',
        `line ${at} in ${COVERAGE_HEADING} is not "- L<n> support_text_json=\\"…\\" disposition=covered": ${excerpt(l)}`,
      )
    const [, anchor, json] = m as RegExpExecArray
    const source = manifest.mandatory.get(anchor)
    if (source === undefined)
      fail(
        'coverage',
        `${anchor} at line ${at} is not a mandatory anchor (only the pack's mandatory records belong in ${COVERAGE_HEADING})`,
      )
    if (covered.has(anchor)) fail('coverage', `${anchor} appears twice in ${COVERAGE_HEADING} (line ${at})`)
    covered.add(anchor)
    let support: unknown
    try {
      support = JSON.parse(json)
    } catch {
      fail('coverage', `the support_text_json of ${anchor} at line ${at} is not a valid JSON string`)
    }
    const s = String(support)
    const need = Math.min(12, (source as string).trim().length)
    if (s.trim().length < need || !SUBSTANTIVE.test(s))
      fail(
        'coverage',
        `the support_text_json of ${anchor} at line ${at} is too short to be meaningful (at least ${need} characters with a letter or digit)`,
      )
    if (!(source as string).includes(s))
      fail('coverage', `the support_text_json of ${anchor} at line ${at} is not an exact substring of record ${anchor}`)
  }
  const missing = [...manifest.mandatory.keys()].filter((a) => !covered.has(a))
  if (missing.length)
    fail(
      'coverage',
      `${missing.length} mandatory anchor(s) have no coverage line: ${missing.slice(0, 8).join(', ')}${missing.length > 8 ? ', …' : ''}`,
    )
}

/** At least one anchor of every required group is cited. */
function checkRequiredGroups(manifest: PackManifest, cited: Set<string>): void {
  for (const g of manifest.requiredGroups) {
    if (!g.anchors.some((a) => cited.has(a)))
      fail(
        'required-group',
        `no anchor of required group '${g.id}' is cited (any of ${g.anchors.slice(0, 6).join(' ')}${g.anchors.length > 6 ? ' …' : ''})`,
      )
  }
}

export interface ComposeOptions {
  transcriptPath: string
  /** --summary-char-budget (default 60000, at least 4000). */
  charBudget?: number
  /** --preserve-prior-summaries-verbatim: prior summaries embedded as they are, budget × 1.5. */
  preservePriorSummariesVerbatim?: boolean
  firstKeptLine?: number
  keptRecords?: number
}

export interface ComposedSummary {
  text: string
  /** 'model-assisted' with a model text, else 'deterministic'. */
  kind: 'model-assisted' | 'deterministic'
  preserveMode: 'folded' | 'verbatim'
  /** Why verbatim prior summaries fell back to folding. */
  fallbackReason?: string
  charBudget: number
}

/** The smallest safety appendix under a model summary: the nine sections' frame and a few lines. */
export const MIN_APPENDIX_CHARS = 2000
/** The appendix under a model summary is at most this long. */
export const MAX_APPENDIX_CHARS = 18000

export function summaryCharBudget(value: number | undefined): number {
  const b = value ?? DEFAULT_SUMMARY_CHAR_BUDGET
  if (!Number.isInteger(b) || b < MIN_SUMMARY_CHAR_BUDGET)
    throw usageError(`--summary-char-budget must be an integer of at least ${MIN_SUMMARY_CHAR_BUDGET}`)
  return b
}

function verbatimBlock(inputs: SummaryInputs): string {
  const priors = inputs.entries.filter((e) => e.priorSummary !== undefined)
  return priors.map((e) => `## Prior Summary (verbatim, L${e.line})\n\n${e.priorSummary}\n\n`).join('')
}

/**
 * The final compact summary text: Claude Code's preamble, then the accepted model text and a
 * deterministic safety appendix (or the deterministic summary alone), then the pointer to the
 * original transcript. Prior summaries are folded in, or embedded verbatim when asked and they fit.
 */
export function composeSummary(
  inputs: SummaryInputs,
  opts: ComposeOptions,
  model?: AcceptedModelSummary,
): ComposedSummary {
  const budget = summaryCharBudget(opts.charBudget)
  const how = model
    ? 'It was written by a summarising model from an evidence pack of the transcript, checked by claude-jsonl, and followed by a deterministic safety appendix; each line cites its source line in the original transcript as L<number> (H<number>: a line of the handoff file).'
    : 'It was written offline by claude-jsonl from the transcript itself; each line names its source line in the original transcript as L<number>.'
  const head = `${CONTINUATION_PREAMBLE} ${how}\n\n`
  const tail = `\n\nIf you need specific details from before compaction (like exact code snippets, error messages, or content you generated), read the full transcript at: ${opts.transcriptPath}`
  const hasPriors = inputs.entries.some((e) => e.priorSummary !== undefined)
  let verbatim = ''
  let limit = budget
  let fallbackReason: string | undefined
  if (opts.preservePriorSummariesVerbatim && hasPriors) {
    const block = verbatimBlock(inputs)
    const wide = Math.floor(budget * 1.5)
    const minimum =
      head.length + block.length + (model ? model.body.length + MIN_APPENDIX_CHARS : MIN_APPENDIX_CHARS) + tail.length
    if (minimum <= wide) {
      verbatim = block
      limit = wide
    } else
      fallbackReason = `the prior summaries (${block.length} characters) do not fit 1.5 × --summary-char-budget (${wide}) with the rest of the summary; they were folded instead`
  }
  const frame = head.length + verbatim.length + tail.length
  const base = {
    transcriptPath: opts.transcriptPath,
    firstKeptLine: opts.firstKeptLine,
    keptRecords: opts.keptRecords,
    bare: true,
    skipPriorSummaries: verbatim !== '',
  }
  let body: string
  if (model) {
    const room = limit - frame - model.body.length - '\n\n## Deterministic Safety Appendix\n\n'.length
    if (room < MIN_APPENDIX_CHARS)
      throw new ClaudeJsonlError(
        `the accepted model summary (${model.body.length} characters) leaves ${Math.max(0, room)} of --summary-char-budget ${limit} for the deterministic safety appendix, which needs at least ${MIN_APPENDIX_CHARS}: raise --summary-char-budget (a model summary is never cut)`,
        EXIT.input,
      )
    const appendix = deterministicSummary(inputs, {
      ...base,
      charBudget: Math.min(MAX_APPENDIX_CHARS, room),
      headingLevel: 3,
    }).text
    body = `${model.body}\n\n## Deterministic Safety Appendix\n\n${appendix}`
  } else body = deterministicSummary(inputs, { ...base, charBudget: limit - frame }).text
  const text = head + verbatim + body + tail
  return {
    text,
    kind: model ? 'model-assisted' : 'deterministic',
    preserveMode: verbatim ? 'verbatim' : 'folded',
    fallbackReason,
    charBudget: limit,
  }
}
