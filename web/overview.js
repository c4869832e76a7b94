// Overview: the environment's figures, queue depth and active runs, refreshed
// in place every few seconds while the page is open.
import { api, messageOf, query } from "./api.js"
import { durationChart, outcomesChart, seriesTable } from "./chart.js"
import { alertBox, el } from "./dom.js"

const refreshMs = 5000

/** How many runs are in a state, read from the first page of the listing ("200+" past it). */
const countOf = async (envId, status) => {
  const res = await api("GET", `/environments/${envId}/runs${query({ status, limit: 200 })}`)
  if (res.status !== 200) return "—"
  return res.body.nextCursor === null ? String(res.body.items.length) : `${res.body.items.length}+`
}

const read = async (envId) => {
  const [res, queued, running] = await Promise.all([
    api("GET", `/environments/${envId}/dashboard/overview`),
    countOf(envId, "queued"),
    countOf(envId, "running")
  ])
  if (res.status !== 200) return { res }
  const o = res.body
  return {
    values: {
      onlineWorkers: String(o.onlineWorkers),
      queued,
      running,
      todaysRuns: String(o.todaysRuns),
      expired: String(o.todaysExpiredRuns),
      successRate: o.successRatePct === null ? "no finished runs" : `${o.successRatePct}%`,
      spend: `$${o.monthTokenSpendUsd}`
    }
  }
}

const labels = {
  onlineWorkers: "Online workers",
  queued: "Queued runs (queue depth)",
  running: "Running now",
  todaysRuns: "Runs today (UTC)",
  expired: "Expired today (not picked up in time)",
  successRate: "Success rate today",
  spend: "Token spend this month"
}

export const render = async (ctx) => {
  const title = el("h1", {}, `Overview · ${ctx.env.name}`)
  const first = await read(ctx.env.id)
  if (first.res !== undefined) return ctx.show(title, alertBox(messageOf(first.res)))
  const cells = {}
  const list = el("ul", { class: "figures" }, Object.entries(labels).map(([key, label]) => {
    cells[key] = el("span", { class: "value", "data-figure": key }, first.values[key])
    return el("li", {}, cells[key], label)
  }))
  const updated = el("p", { class: "hint" }, "Updated every few seconds.")
  const charts = el("section", { "aria-labelledby": "last-day" }, el("h2", { id: "last-day" }, "Last 24 hours"))
  const drawCharts = async () => {
    const series = await api("GET", `/environments/${ctx.env.id}/dashboard/runs${query({ bucket: "hour" })}`)
    if (!ctx.live()) return
    if (series.status !== 200) return charts.replaceChildren(charts.firstChild, alertBox(messageOf(series)))
    const open = charts.querySelector("details")?.open ?? false
    charts.replaceChildren(charts.firstChild,
      el("div", { class: "charts" }, outcomesChart(series.body.items), durationChart(series.body.items)), seriesTable(series.body.items))
    if (open) charts.querySelector("details").open = true
  }
  await drawCharts()
  ctx.show(title, list, updated, charts,
    el("p", {}, el("a", { href: "#/runs" }, "See the runs"), " · ", el("a", { href: "#/triggers" }, "Triggers"), " · ",
      el("a", { href: "#/workers" }, "Workers")))

  let timer
  const refresh = async () => {
    if (!ctx.live()) return
    if (!document.hidden) {
      const next = await read(ctx.env.id)
      if (!ctx.live()) return
      if (next.values !== undefined) {
        for (const [key, value] of Object.entries(next.values)) if (cells[key].textContent !== value) cells[key].textContent = value
      }
      await drawCharts()
    }
    timer = setTimeout(refresh, refreshMs)
  }
  timer = setTimeout(refresh, refreshMs)
  ctx.onLeave(() => clearTimeout(timer))
}
