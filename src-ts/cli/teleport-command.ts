// `claude-jsonl teleport-id ID`: the local session uuid of a teleport id, and its transcript.
import { parseCommand } from './args.js'
import { teleportId, TeleportResult } from '../read/teleport.js'
import { describeHolders } from '../read/live-sessions.js'
import { ClaudeJsonlError, EXIT, usageError } from '../errors.js'

export const TELEPORT_USAGE = `claude-jsonl teleport-id ID [--fallback] [--title TEXT] [--projects DIR] [--json]`

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
      `no local transcript has ${r.uuid} (searched ${r.searched.sessions} sessions under ${r.searched.roots.join(', ')})`,
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

/**
 * Exit 0 when a transcript was found (by uuid, bridge transcript, or at least one title
 * candidate), else the uuid is still printed and the command fails with exit 3 naming what
 * was searched.
 */
export async function runTeleport(
  args: string[],
  write: (s: string) => void = (s) => void process.stdout.write(s),
): Promise<number> {
  const parsed = parseCommand('teleport-id', args, {
    fallback: { type: 'boolean' },
    title: { type: 'string' },
    projects: { type: 'string' },
    json: { type: 'boolean' },
  })
  const v = parsed.values
  if (v.help) return (write(`Usage:\n  ${TELEPORT_USAGE}\n`), EXIT.ok)
  if (parsed.positionals.length !== 1)
    throw usageError(`teleport-id takes one id, got ${parsed.positionals.length} (usage: ${TELEPORT_USAGE})`)
  const r = teleportId(parsed.positionals[0], { projects: v.projects, fallback: v.fallback, title: v.title })
  const text = v.json ? JSON.stringify(r, null, 2) : renderTeleport(r)
  write(text + '\n')
  if (r.transcript || (r.fallback && r.fallback.candidates.length > 0)) return EXIT.ok
  const what = r.fallback
    ? r.fallback.query
      ? ` or whose title contains ${JSON.stringify(r.fallback.query)}`
      : ' (and no derived title in the logs)'
    : ''
  throw new ClaudeJsonlError(
    `no local transcript has session ${r.uuid} (from ${r.cseId})${what}: searched ${r.searched.sessions} sessions under ${r.searched.roots.join(', ')}`,
    EXIT.input,
  )
}
