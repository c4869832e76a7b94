// Runs: the environment's runs, newest first, with filters, cursor paging and
// live updates of the first page from the environment's event stream (rows
// change in place, new runs that match the filters appear in order).
import { all, api, messageOf, query } from "./api.js"
import { alertBox, control, el, emptyRow, formatCost, formatDuration, frameBatcher, shortId, statusBadge, table, timeEl } from "./dom.js"
import { followRuns } from "./events.js"
import { runStatuses } from "./statuses.js"

const pageSize = 50

/** `2026-11-25T13:40` (a datetime-local value, local time) ↔ ISO 8601. */
const toIso = (local) => local === "" ? "" : new Date(local).toISOString()
const toLocal = (iso) => {
  if (!iso) return ""
  const d = new Date(iso)
  if (Number.isNaN(d.getTime())) return ""
  const p = (n) => String(n).padStart(2, "0")
  return `${d.getFullYear()}-${p(d.getMonth() + 1)}-${p(d.getDate())}T${p(d.getHours())}:${p(d.getMinutes())}`
}

const filtersOf = (params) => ({
  status: params.get("status") ?? "",
  triggerId: params.get("triggerId") ?? "",
  workerId: params.get("workerId") ?? "",
  from: params.get("from") ?? "",
  to: params.get("to") ?? ""
})

/** Whether a run (from a live update) belongs on this filtered first page. */
const matches = (filters, run) =>
  (filters.status === "" || run.status === filters.status) &&
  (filters.triggerId === "" || run.triggerId === filters.triggerId) &&
  (filters.workerId === "" || run.workerId === filters.workerId) &&
  (filters.from === "" || run.createdAt >= new Date(filters.from).toISOString()) &&
  (filters.to === "" || run.createdAt <= new Date(filters.to).toISOString())

const listPath = (envId, filters, cursor) => {
  const params = { status: filters.status, workerId: filters.workerId, from: filters.from, to: filters.to, cursor, limit: pageSize }
  return filters.triggerId === ""
    ? `/environments/${envId}/runs${query(params)}`
    : `/triggers/${filters.triggerId}/runs${query(params)}`
}

export const render = async (ctx, { params }) => {
  const filters = filtersOf(params)
  const cursor = params.get("cursor") ?? ""
  const [triggersRes, workersRes, first] = await Promise.all([
    all(`/environments/${ctx.env.id}/triggers`),
    all(`/environments/${ctx.env.id}/workers`),
    api("GET", listPath(ctx.env.id, filters, cursor))
  ])
  const triggerNames = new Map(triggersRes.items.map((t) => [t.id, t.name]))
  const workerLabels = new Map(workersRes.items.map((w) => [w.id, w.label]))

  const status = control("Status", "select", { name: "status", value: filters.status },
    [["", "Any status"], ...runStatuses.map((s) => [s, s.replace("_", " ")])])
  const trigger = control("Trigger", "select", { name: "triggerId", value: filters.triggerId },
    [["", "Any trigger"], ...triggersRes.items.map((t) => [t.id, t.name])])
  const worker = control("Worker", "select", { name: "workerId", value: filters.workerId },
    [["", "Any worker"], ...workersRes.items.map((w) => [w.id, w.label])])
  const from = control("Created from", "input", { type: "datetime-local", name: "from", value: toLocal(filters.from) })
  const to = control("Created to", "input", { type: "datetime-local", name: "to", value: toLocal(filters.to) })
  const filterForm = el("form", { class: "filters", "aria-label": "Filter runs", role: "search" },
    status.node, trigger.node, worker.node, from.node, to.node,
    el("div", { class: "actions" },
      el("button", { type: "submit" }, "Apply filters"),
      el("a", { href: "#/runs", class: "button secondary" }, "Clear")))
  filterForm.addEventListener("submit", (event) => {
    event.preventDefault()
    ctx.go(`#/runs${query({
      status: status.input.value,
      triggerId: trigger.input.value,
      workerId: worker.input.value,
      from: toIso(from.input.value),
      to: toIso(to.input.value)
    })}`)
  })

  const title = el("h1", {}, "Runs")
  if (first.status !== 200) {
    // A 400 names the filter at fault (a bad cursor or timestamp): say so beside the filters.
    const fieldErrors = first.body?.details?.fieldErrors ?? {}
    for (const [name, f] of Object.entries({ status, workerId: worker, from, to })) f.setError(fieldErrors[name]?.join(" "))
    return ctx.show(title, filterForm, alertBox(messageOf(first)))
  }

  const cell = {
    id: (run) => el("a", { href: `#/runs/${run.id}`, "aria-label": `Run ${run.id}` }, shortId(run.id)),
    status: (run) => statusBadge(run.status),
    trigger: (run) => triggerNames.get(run.triggerId) ?? shortId(run.triggerId),
    worker: (run) => run.workerId === null ? "—" : workerLabels.get(run.workerId) ?? shortId(run.workerId),
    attempt: (run) => String(run.attempt),
    created: (run) => timeEl(run.createdAt),
    duration: (run) => formatDuration(run.durationMs),
    cost: (run) => formatCost(run.costUsd)
  }
  const columns = Object.keys(cell)
  const rows = new Map()
  const fill = (tr, run) => {
    tr.replaceChildren(...columns.map((c) => el("td", { class: `col-${c}` }, cell[c](run))))
    tr.dataset.status = run.status
  }
  const rowFor = (run) => {
    const tr = el("tr", { "data-run": run.id })
    fill(tr, run)
    rows.set(run.id, { tr, run })
    return tr
  }
  const tbodyRows = first.body.items.map(rowFor)
  const runsTable = table("Runs, newest first", ["Run", "Status", "Trigger", "Worker", "Attempt", "Created", "Duration", "Cost"],
    tbodyRows.length > 0 ? tbodyRows : [emptyRow(columns.length, "No runs match these filters.")],
    { class: "runs", "aria-live": "off" })
  const tbody = runsTable.querySelector("tbody")

  const pager = el("nav", { class: "pager", "aria-label": "Pages of runs" },
    cursor === "" ? undefined : el("a", { href: `#/runs${query({ ...filters })}` }, "← Newest runs"),
    first.body.nextCursor === null ? undefined : el("a", { href: `#/runs${query({ ...filters, cursor: first.body.nextCursor })}` }, "Older runs →"))
  const liveNote = el("p", { class: "hint", "data-live": cursor === "" ? "connecting" : "off" },
    cursor === "" ? "Connecting to live updates…" : "An older page: it does not update by itself.")

  ctx.show(title, filterForm, liveNote, runsTable, pager)

  if (cursor !== "") return
  // Live updates: a run already shown changes in place; a new one that matches
  // the filters takes its place by id (ids grow with creation time), and the
  // page keeps its length. Applied once per animation frame, the latest state
  // of each run only, however many events arrived meanwhile.
  const apply = frameBatcher((latest) => {
    const fresh = []
    for (const run of latest) {
      const known = rows.get(run.id)
      if (known !== undefined) {
        if (JSON.stringify(known.run) !== JSON.stringify(run)) {
          known.run = run
          fill(known.tr, run)
        }
      } else if (matches(filters, run)) fresh.push(run)
    }
    if (fresh.length === 0) return
    fresh.sort((a, b) => a.id < b.id ? 1 : -1)
    tbody.querySelector("td.empty")?.parentElement.remove()
    let at = 0
    for (const run of fresh) {
      while (at < tbody.rows.length && tbody.rows[at].dataset.run > run.id) at += 1
      if (at >= pageSize) break
      tbody.insertBefore(rowFor(run), tbody.rows[at] ?? null)
      at += 1
    }
    while (tbody.rows.length > pageSize) {
      const last = tbody.rows[tbody.rows.length - 1]
      rows.delete(last.dataset.run)
      last.remove()
    }
  }, (run) => run.id)
  const states = {
    live: "Live: runs appear and change here as they happen.",
    reconnecting: "Live updates interrupted; reconnecting…",
    paused: "Live updates paused while this tab is hidden."
  }
  const stop = followRuns(ctx.env.id, {
    onRun: apply,
    // Whatever changed before the stream was (re)connected: read the first page once more.
    onOpen: async () => {
      const res = await api("GET", listPath(ctx.env.id, filters, ""))
      if (ctx.live() && res.status === 200) for (const run of res.body.items) apply(run)
    },
    onState: (state) => {
      liveNote.dataset.live = state
      liveNote.textContent = states[state]
    }
  })
  ctx.onLeave(stop)
}
