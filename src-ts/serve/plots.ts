// Plots as SVG built on the server: the page needs no script, no library and no request to draw
// them, and every label is escaped text. Bars carry a <title> so a hover shows the exact figure.
import { escapeHtml as e } from '../cli/show-parts.js'

/** One bar of a stacked chart: its label and its segments (series name, value). */
export interface StackedBar {
  label: string
  segments: { series: string; value: number }[]
}

/** Colours for series, in order of their total (the largest first); the rest share the last. */
const PALETTE = ['#4e79a7', '#f28e2b', '#59a14f', '#e15759', '#76b7b2', '#edc948', '#b07aa1', '#9c755f', '#bab0ac']

/** A round step for an axis from 0 to `max` with about `ticks` lines. */
function niceStep(max: number, ticks: number): number {
  if (!(max > 0)) return 1
  const raw = max / ticks
  const pow = 10 ** Math.floor(Math.log10(raw))
  for (const m of [1, 2, 2.5, 5, 10]) if (m * pow >= raw) return m * pow
  return 10 * pow
}

/** Colours by series: the largest series first, so they keep their colour as the window moves. */
export function seriesColours(bars: StackedBar[]): Map<string, string> {
  const totals = new Map<string, number>()
  for (const b of bars) for (const s of b.segments) totals.set(s.series, (totals.get(s.series) ?? 0) + s.value)
  const order = [...totals].sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1)).map(([k]) => k)
  return new Map(order.map((k, i) => [k, PALETTE[Math.min(i, PALETTE.length - 1)]]))
}

/** An axis label: a value written with as many decimals as the step between lines needs. */
export function axisLabel(prefix: string): (v: number, step: number) => string {
  return (v, step) => prefix + v.toFixed(Math.max(0, Math.min(6, -Math.floor(Math.log10(step)))))
}

/**
 * Vertical bars, one per label (a day), each stacked by series (a model). `format` writes a value
 * (a cost) for a bar's hover text, `axis` the value axis's labels. The chart scales to its
 * container's width.
 */
export function stackedBarChart(
  bars: StackedBar[],
  format: (v: number) => string,
  axis: (v: number, step: number) => string,
  title: string,
): string {
  const W = 960
  const H = 300
  const left = 64
  const bottom = 40
  const top = 12
  const right = 40 // room for the last label, centred under its bar
  const plotW = W - left - right
  const plotH = H - top - bottom
  const totals = bars.map((b) => b.segments.reduce((a, s) => a + s.value, 0))
  const max = Math.max(0, ...totals)
  const step = niceStep(max, 5)
  const yMax = Math.max(step, Math.ceil(max / step) * step)
  const y = (v: number) => top + plotH - (v / yMax) * plotH
  const colours = seriesColours(bars)
  const slot = bars.length > 0 ? plotW / bars.length : plotW
  const barW = Math.max(1, Math.min(40, slot * 0.8))
  const out: string[] = []
  out.push(
    `<svg class="plot" viewBox="0 0 ${W} ${H}" role="img" aria-label="${e(title)}" preserveAspectRatio="xMidYMid meet">`,
  )
  for (let v = 0; v <= yMax + step / 2; v += step) {
    out.push(
      `<line class="grid" x1="${left}" x2="${W - right}" y1="${y(v).toFixed(1)}" y2="${y(v).toFixed(1)}"/>`,
      `<text class="tick" x="${left - 6}" y="${(y(v) + 4).toFixed(1)}" text-anchor="end">${e(axis(v, step))}</text>`,
    )
  }
  // At most about 12 labels along the axis, whatever the number of bars.
  const every = Math.max(1, Math.ceil(bars.length / 12))
  bars.forEach((b, i) => {
    const x = left + i * slot + (slot - barW) / 2
    let acc = 0
    const segs = [...b.segments].sort(
      (p, q) => [...colours.keys()].indexOf(p.series) - [...colours.keys()].indexOf(q.series),
    )
    out.push(`<g class="bar" data-label="${e(b.label)}" data-total="${totals[i]}">`)
    for (const s of segs) {
      if (!(s.value > 0)) continue
      const y0 = y(acc)
      acc += s.value
      const y1 = y(acc)
      out.push(
        `<rect x="${x.toFixed(1)}" y="${y1.toFixed(1)}" width="${barW.toFixed(1)}" height="${Math.max(0.5, y0 - y1).toFixed(1)}" fill="${colours.get(s.series)}"><title>${e(`${b.label} · ${s.series}: ${format(s.value)}`)}</title></rect>`,
      )
    }
    out.push('</g>')
    if (i % every === 0)
      out.push(
        `<text class="tick" x="${(x + barW / 2).toFixed(1)}" y="${H - bottom + 16}" text-anchor="middle">${e(b.label)}</text>`,
      )
  })
  out.push('</svg>')
  const legend = [...colours]
    .slice(0, PALETTE.length)
    .map(([k, c]) => `<li><span class="swatch" style="background:${c}"></span>${e(k)}</li>`)
    .join('')
  return `<figure class="chart"><figcaption>${e(title)}</figcaption>${out.join('')}<ul class="legend">${legend}</ul></figure>`
}

/** Horizontal bars, one per row (a project), largest first, with the value written beside each. */
export function horizontalBarChart(
  rows: { label: string; value: number }[],
  format: (v: number) => string,
  title: string,
): string {
  const W = 960
  const rowH = 22
  const labelW = 360
  const H = Math.max(rowH, rows.length * rowH) + 8
  const max = Math.max(0, ...rows.map((r) => r.value))
  const plotW = W - labelW - 110
  const out: string[] = [
    `<svg class="plot" viewBox="0 0 ${W} ${H}" role="img" aria-label="${e(title)}" preserveAspectRatio="xMidYMid meet">`,
  ]
  rows.forEach((r, i) => {
    const w = max > 0 ? (r.value / max) * plotW : 0
    const yy = 4 + i * rowH
    const label = r.label.length > 48 ? '…' + r.label.slice(-47) : r.label
    out.push(
      `<g class="row" data-label="${e(r.label)}">`,
      `<text class="tick" x="${labelW - 8}" y="${yy + 15}" text-anchor="end">${e(label)}</text>`,
      `<rect x="${labelW}" y="${yy + 3}" width="${Math.max(0.5, w).toFixed(1)}" height="${rowH - 6}" fill="${PALETTE[0]}"><title>${e(`${r.label}: ${format(r.value)}`)}</title></rect>`,
      `<text class="tick" x="${(labelW + w + 6).toFixed(1)}" y="${yy + 15}">${e(format(r.value))}</text>`,
      '</g>',
    )
  })
  out.push('</svg>')
  return `<figure class="chart"><figcaption>${e(title)}</figcaption>${out.join('')}</figure>`
}
