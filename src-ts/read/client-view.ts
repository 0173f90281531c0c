// The API messages the real client builds when it resumes a transcript, as the native core
// models them (crate/core/src/client): roles, the records each message is built from, tool ids, and
// the records the client sends nothing for. Structure only: no transcript text crosses.
import native from '../native.js'
import type { ClientView } from '#native'

export type { ClientView, ClientMessage } from '#native'

/** The client's view of a transcript held in memory. */
export function clientView(bytes: Uint8Array): ClientView {
  return native.clientView(native.scanBuffer(bytes, 'full'), bytes)
}
