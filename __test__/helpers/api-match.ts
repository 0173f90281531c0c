// Compares what the real client sent with our API view. Exact, except where the view holds an
// OPAQUE placeholder (an attachment kind whose rendering is not emulated): there any one
// system-reminder matches.
import { isDeepStrictEqual } from 'node:util'
import { OPAQUE } from './api-view.js'

const escape = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')
const PLACEHOLDER = new RegExp(`${OPAQUE}[^${OPAQUE}]*${OPAQUE}`, 'g')

function stringMatches(client: string, ours: string): boolean {
  if (!ours.includes(OPAQUE)) return client === ours
  const pattern = ours.split(PLACEHOLDER).map(escape).join('(?:(?!</system-reminder>)[\\s\\S])*')
  return new RegExp(`^${pattern}$`).test(client)
}

/** Whether `client` (a value from the client's request) matches `ours` (from the API view). */
export function viewMatches(client: unknown, ours: unknown): boolean {
  if (typeof ours === 'string') return typeof client === 'string' && stringMatches(client, ours)
  if (Array.isArray(ours))
    return Array.isArray(client) && client.length === ours.length && ours.every((x, k) => viewMatches(client[k], x))
  if (ours && typeof ours === 'object') {
    if (!client || typeof client !== 'object' || Array.isArray(client)) return false
    const a = Object.keys(client).sort()
    const b = Object.keys(ours).sort()
    return isDeepStrictEqual(a, b) && b.every((k) => viewMatches((client as any)[k], (ours as any)[k]))
  }
  return isDeepStrictEqual(client, ours)
}

/** The first message index where they differ, or -1. */
export function firstMismatch(client: unknown[], ours: unknown[]): number {
  for (let k = 0; k < Math.max(client.length, ours.length); k++) if (!viewMatches(client[k], ours[k])) return k
  return -1
}
