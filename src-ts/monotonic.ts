// A monotonic clock in milliseconds for the durations commands report: the global `performance`
// loads ten of Node's modules on first use, a millisecond of a command's start-up.
export const monotonicMs = (): number => Number(process.hrtime.bigint()) / 1e6
