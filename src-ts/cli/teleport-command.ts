// `claude-jsonl teleport-id ID`: the local session uuid of a teleport id, and its transcript.
import { teleportId, TeleportResult } from '../read/teleport.js'
import { describeHolders } from '../read/live-sessions.js'
import { ClaudeJsonlError, EXIT } from '../errors.js'
import { defineCommand, flag, runCommand, text, type Write } from './command.js'
import { count } from '../terminal/format.js'
import { JSON_OUTPUT, PROJECTS } from './common-options.js'

export function renderTeleport(r: TeleportResult): string {
  const out = [`${r.uuid}  (uuid5 of ${r.resumeUrl})`]
  if (r.bridge) {
    out.push(
      r.bridge.agrees
        ? `bridge transcript agrees: ${r.bridge.path}`
        : `bridge transcript names ${r.bridge.sessionId} instead: ${r.bridge.path} (the rule may have changed)`,
    )
  }
  if (r.transcript) {
    const t = r.transcript
    out.push(`transcript: ${t.path}${r.matchedBy === 'bridge-transcript' ? ' (by the bridge transcript)' : ''}`)
    if (t.cwd) out.push(`cwd: ${t.cwd}`)
    if (t.title) out.push(`title: ${t.title}`)
    out.push(`resume: ${t.cwd ? `cd ${JSON.stringify(t.cwd)} && ` : ''}claude --resume ${t.sessionId}`)
    if (r.liveHolders.length)
      out.push(
        `warning: Claude Code is running this session now (${describeHolders(r.liveHolders)}); resuming it elsewhere as well makes two writers append to one transcript`,
      )
  } else if (r.fallback) {
    out.push(
      `no local transcript has ${r.uuid} (searched ${count(r.searched.sessions, 'session')} under ${r.searched.roots.join(', ')})`,
    )
  }
  if (r.fallback) {
    const f = r.fallback
    if (f.query === '')
      out.push(
        `fallback: no derived title for ${r.sessionId} in ${r.searched.logs.length ? r.searched.logs.join(', ') : 'any logs folder'}; give one with --title`,
      )
    else {
      out.push(
        `fallback: ${f.candidates.length} session(s) whose title or first prompt contains ${JSON.stringify(f.query)}${f.from === 'derived-title' ? ' (derived title from the logs)' : ''}`,
      )
      for (const c of f.candidates.slice(0, 20))
        out.push(
          `  ${c.sessionId}${c.isV5 ? ' v5' : '   '}  ${c.matchedOn}  ${c.cwd ?? `(${c.project})`}  ${c.title ?? ''}`,
        )
      if (f.candidates.length > 20) out.push(`  … ${f.candidates.length - 20} more (--json lists all)`)
    }
  }
  return out.join('\n')
}

export const command = defineCommand({
  name: 'teleport-id',
  args: 'ID',
  oneArgument: { name: 'ID' },
  options: {
    fallback: flag("match the title Claude Code's remote log derived against titles and first prompts"),
    title: text('TEXT', 'match TEXT against the titles sessions shows (custom, ai, summary) and first prompts'),
    projects: PROJECTS,
    json: JSON_OUTPUT,
  },
  description: `The local session uuid of a teleport id (session_X or cse_X), the transcript that has it and a
resume line.`,
  // Exit 0 when a transcript was found (by uuid, bridge transcript, or at least one title
  // candidate); else the uuid is still printed and the command fails naming what was searched.
  exitCodes: 'Exit codes: 0 found, 2 a malformed id, 3 no local transcript has it.',
  async run({ values: v, positionals, print }) {
    const r = teleportId(positionals[0], { projects: v.projects, fallback: v.fallback, title: v.title })
    print(v.json ? JSON.stringify(r, null, 2) : renderTeleport(r))
    if (r.transcript || (r.fallback && r.fallback.candidates.length > 0)) return EXIT.ok
    const what = r.fallback
      ? r.fallback.query
        ? ` or whose title contains ${JSON.stringify(r.fallback.query)}`
        : ' (and no derived title in the logs)'
      : ''
    throw new ClaudeJsonlError(
      `no local transcript has session ${r.uuid} (from ${r.cseId})${what}: searched ${count(r.searched.sessions, 'session')} under ${r.searched.roots.join(', ')}`,
      EXIT.input,
    )
  },
})

export const runTeleport = (args: string[], write?: Write) => runCommand(command, args, write)
