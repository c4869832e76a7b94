// The overview's charts, drawn as SVG from the time series endpoint: runs
// ended per hour by outcome (stacked bars) and duration p50/p95 (lines). Each
// chart has a text legend and the same numbers as a table, so nothing depends
// on telling colours apart.
import { el, formatDuration, table } from "./dom.js"

const svgNs = "http://www.w3.org/2000/svg"
const svg = (tag, attrs = {}, ...children) => {
  const node = document.createElementNS(svgNs, tag)
  for (const [key, value] of Object.entries(attrs)) node.setAttribute(key, String(value))
  node.append(...children)
  return node
}

export const outcomes = [
  { key: "succeeded", label: "succeeded", fill: "#2da44e" },
  { key: "failed", label: "failed", fill: "#cf222e" },
  { key: "timedOut", label: "timed out", fill: "#bf8700" },
  { key: "cancelled", label: "cancelled", fill: "#8c959f" },
  { key: "expired", label: "expired", fill: "#6e40c9" }
]

const width = 720
const height = 180
const left = 48
const bottom = 24
const plotW = width - left - 8
const plotH = height - bottom - 8

const hourOf = (iso) => `${new Date(iso).getUTCHours().toString().padStart(2, "0")}:00`

const axis = (max, format) => [0, max / 2, max].map((v) => {
  const y = 8 + plotH - (max === 0 ? 0 : (v / max) * plotH)
  return svg("g", {}, svg("line", { x1: left, x2: width - 8, y1: y, y2: y, stroke: "#eaeef2" }),
    svg("text", { x: left - 6, y: y + 4, "text-anchor": "end", "font-size": 11, fill: "#57606a" }, format(v)))
})

const hourLabels = (items, step) => items.map((b, i) => i % 4 !== 0 ? undefined
  : svg("text", { x: left + i * step + step / 2, y: height - 6, "text-anchor": "middle", "font-size": 11, fill: "#57606a" }, hourOf(b.bucketStart)))
  .filter(Boolean)

const legend = (entries) => el("ul", { class: "legend" }, entries.map((e) =>
  el("li", {}, el("span", { class: `swatch swatch-${e.key}`, "aria-hidden": "true" }), e.label)))

/** Runs that ended per hour, stacked by outcome. */
export const outcomesChart = (items) => {
  const max = Math.max(1, ...items.map((b) => outcomes.reduce((n, o) => n + b[o.key], 0)))
  const step = plotW / Math.max(1, items.length)
  const bars = items.flatMap((b, i) => {
    let y = 8 + plotH
    return outcomes.filter((o) => b[o.key] > 0).map((o) => {
      const h = (b[o.key] / max) * plotH
      y -= h
      return svg("rect", { x: left + i * step + 1, y, width: Math.max(1, step - 2), height: h, fill: o.fill },
        svg("title", {}, `${hourOf(b.bucketStart)} UTC: ${b[o.key]} ${o.label}`))
    })
  })
  return el("figure", { class: "chart" },
    svg("svg", { viewBox: `0 0 ${width} ${height}`, role: "img", "aria-label": "Runs ended per hour over the last 24 hours, by outcome" },
      ...axis(max, (v) => Number.isInteger(v) ? String(v) : ""), ...bars, ...hourLabels(items, step)),
    el("figcaption", {}, "Runs ended per hour (UTC), last 24 h", legend(outcomes)))
}

/** Duration p50 (solid) and p95 (dashed) of the runs that ended in each hour. */
export const durationChart = (items) => {
  const max = Math.max(1, ...items.map((b) => b.p95DurationMs ?? 0))
  const step = plotW / Math.max(1, items.length)
  const line = (key, dash) => {
    const points = items.map((b, i) => b[key] === null ? null : `${left + i * step + step / 2},${8 + plotH - (b[key] / max) * plotH}`)
    // A gap where an hour had no ended run; a lone point is drawn as a dot.
    const segments = []
    let current = []
    for (const p of points) {
      if (p === null) {
        if (current.length > 0) segments.push(current)
        current = []
      } else current.push(p)
    }
    if (current.length > 0) segments.push(current)
    return segments.map((s) => s.length === 1
      ? svg("circle", { cx: s[0].split(",")[0], cy: s[0].split(",")[1], r: 3, fill: "#0b5cad" })
      : svg("polyline", { points: s.join(" "), fill: "none", stroke: "#0b5cad", "stroke-width": 2, ...(dash ? { "stroke-dasharray": "6 4" } : {}) }))
  }
  return el("figure", { class: "chart" },
    svg("svg", { viewBox: `0 0 ${width} ${height}`, role: "img", "aria-label": "Run duration p50 and p95 per hour over the last 24 hours" },
      ...axis(max, (v) => formatDuration(Math.round(v))), ...line("p50DurationMs", false), ...line("p95DurationMs", true), ...hourLabels(items, step)),
    el("figcaption", {}, "Duration per hour: p50 (solid line), p95 (dashed line)"))
}

/** The same numbers as a table: the hours in which anything happened. */
export const seriesTable = (items) => {
  const busy = items.filter((b) => b.queued + outcomes.reduce((n, o) => n + b[o.key], 0) > 0)
  return el("details", { class: "series" }, el("summary", {}, "The numbers as a table"),
    busy.length === 0
      ? el("p", {}, "No runs in the last 24 hours.")
      : table("Runs per hour, last 24 hours", ["Hour (UTC)", "Requested", ...outcomes.map((o) => o.label), "p50", "p95"],
        busy.map((b) => el("tr", {},
          el("td", {}, `${b.bucketStart.slice(0, 10)} ${hourOf(b.bucketStart)}`),
          el("td", {}, String(b.queued)),
          outcomes.map((o) => el("td", {}, String(b[o.key]))),
          el("td", {}, formatDuration(b.p50DurationMs)),
          el("td", {}, formatDuration(b.p95DurationMs))))))
}
