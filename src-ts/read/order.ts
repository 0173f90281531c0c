// The order of keys in reports (models, days, projects, tools): by UTF-16 code unit, the same on
// every machine. String.prototype.localeCompare would start ICU's collator, which costs more
// than the rest of a small command's start-up, and orders by the machine's locale.

/** Negative when `a` sorts before `b`, positive after, 0 when equal (code-unit order). */
export function compareText(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0
}
