// The detached archive worker the session-end and pre-compact hooks start: `node
// archive-worker.js ARCHIVE` drains that archive's queue (archive-queue.ts) and exits. Its
// output goes nowhere; what it has to say is in the log beside the archive.
import { drainQueue } from './archive-queue.js'

const archive = process.argv[2]
if (archive) await drainQueue(archive)
