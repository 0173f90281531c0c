// The nine sections of every compact summary, in their order: the deterministic summary writes
// them, the pack asks a model for them, and the model-summary validator checks them, all from
// this one list. `fallback` is the line a section gets when no record fills it (the boundary
// section always gets its boundary line instead).

/** Where the summarised records lie, for a fallback line: `at` is the last line's anchor. */
export interface SectionRange {
  at: string
  range: string
}

export const SUMMARY_SECTIONS = [
  {
    id: 'current',
    heading: 'Current State',
    fallback: (r: SectionRange) =>
      `- ${r.at} No user request or assistant message in the summarised records (${r.range}).`,
  },
  {
    id: 'timeline',
    heading: 'Timeline and Supersessions',
    fallback: (r: SectionRange) => `- ${r.at} No user prompts in the summarised records (${r.range}).`,
  },
  {
    id: 'decisions',
    heading: 'Decisions and Reasons',
    fallback: (r: SectionRange) => `- ${r.at} No stated decision found in the assistant text of ${r.range}.`,
  },
  {
    id: 'research',
    heading: 'Assistant Research Decisions and Rationales',
    fallback: (r: SectionRange) => `- ${r.at} No research finding found in the assistant text of ${r.range}.`,
  },
  {
    id: 'rejected',
    heading: 'Rejected or Superseded Alternatives',
    fallback: (r: SectionRange) => `- ${r.at} No rejected or superseded option found in ${r.range}.`,
  },
  {
    id: 'evidence',
    heading: 'Evidence and Source Anchors',
    fallback: (r: SectionRange) => `- ${r.at} No file change, command or tool error in ${r.range}.`,
  },
  {
    id: 'wording',
    heading: 'User Wording and Constraints',
    fallback: (r: SectionRange) => `- ${r.at} No user wording in ${r.range}.`,
  },
  {
    id: 'risks',
    heading: 'Risks, Unknowns, and Follow-Ups',
    fallback: (r: SectionRange) => `- ${r.at} No open todo, unresolved failure or stated risk found in ${r.range}.`,
  },
  { id: 'boundary', heading: 'Recent Raw Context Boundary', fallback: (_: SectionRange) => '' },
] as const

export type SectionId = (typeof SUMMARY_SECTIONS)[number]['id']

/** A section's position in SUMMARY_SECTIONS, by id. */
export const SECTION = Object.fromEntries(SUMMARY_SECTIONS.map((s, i) => [s.id, i])) as Record<SectionId, number>

/** The nine headings in order. */
export const SECTION_HEADINGS: readonly string[] = SUMMARY_SECTIONS.map((s) => s.heading)
