// Runs: the environment's runs, newest first, with filters, cursor paging and
// live updates of the first page from the environment's event stream (rows
// change in place, new runs that match the filters appear in order). Operators
// select runs (or all runs matching the filters) to cancel or replay them in
// bulk, and follow the bulk action's progress here.
import { all, api, messageOf, query } from "./api.js"
import { alertBox, confirmDialog, control, el, emptyRow, formatCost, formatDuration, frameBatcher, shortId, statusBadge, table, timeEl, waitNote } from "./dom.js"
import { followRuns } from "./events.js"
import { runStatuses } from "./contract.js"
import { startsIn } from "./run.js"

const pageSize = 50
/** How soon after run events the page is read again for its queued runs' wait reasons. */
const reasonsMs = 1000
/** How often, with no run event, the queued runs' wait reasons are read again. */
const quietReasonsMs = 5000

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
  tag: params.get("tag") ?? "",
  from: params.get("from") ?? "",
  to: params.get("to") ?? ""
})

/** Whether a run (from a live update) belongs on this filtered first page. */
const matches = (filters, run) =>
  (filters.status === "" || run.status === filters.status) &&
  (filters.triggerId === "" || run.triggerId === filters.triggerId) &&
  (filters.workerId === "" || run.workerId === filters.workerId) &&
  (filters.tag === "" || run.tags.includes(filters.tag)) &&
  (filters.from === "" || run.createdAt >= new Date(filters.from).toISOString()) &&
  (filters.to === "" || run.createdAt <= new Date(filters.to).toISOString())

const listPath = (envId, filters, cursor) => {
  const params = { status: filters.status, workerId: filters.workerId, tag: filters.tag, from: filters.from, to: filters.to, cursor, limit: pageSize }
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
  const tag = control("Tag", "input", { name: "tag", value: filters.tag, maxlength: "64" })
  const from = control("Created from", "input", { type: "datetime-local", name: "from", value: toLocal(filters.from) })
  const to = control("Created to", "input", { type: "datetime-local", name: "to", value: toLocal(filters.to) })
  const filterForm = el("form", { class: "filters", "aria-label": "Filter runs", role: "search" },
    status.node, trigger.node, worker.node, tag.node, from.node, to.node,
    el("div", { class: "actions" },
      el("button", { type: "submit" }, "Apply filters"),
      el("a", { href: "#/runs", class: "button secondary" }, "Clear")))
  filterForm.addEventListener("submit", (event) => {
    event.preventDefault()
    ctx.go(`#/runs${query({
      status: status.input.value,
      triggerId: trigger.input.value,
      workerId: worker.input.value,
      tag: tag.input.value.trim(),
      from: toIso(from.input.value),
      to: toIso(to.input.value)
    })}`)
  })

  const title = el("h1", {}, "Runs")
  if (first.status !== 200) {
    // A 400 names the filter at fault (a bad cursor or timestamp): say so beside the filters.
    const fieldErrors = first.body?.details?.fieldErrors ?? {}
    for (const [name, f] of Object.entries({ status, workerId: worker, tag, from, to })) f.setError(fieldErrors[name]?.join(" "))
    return ctx.show(title, filterForm, alertBox(messageOf(first)))
  }

  // Selection for bulk actions (operators): the ids ticked on this page.
  const operator = ctx.can("operator")
  const selected = new Set()
  const cell = {
    ...(operator ? {
      select: (run) => el("input", {
        type: "checkbox",
        "aria-label": `Select run ${run.id}`,
        checked: selected.has(run.id),
        onchange: (event) => {
          if (event.target.checked) selected.add(run.id)
          else selected.delete(run.id)
          bulk.update()
        }
      })
    } : {}),
    id: (run) => el("a", { href: `#/runs/${run.id}`, "aria-label": `Run ${run.id}` }, shortId(run.id)),
    // A run waiting for its moment counts down to it (a delay, a retry's backoff).
    status: (run) => el("span", {}, statusBadge(run.status), waitNote(run), startsIn(run)),
    trigger: (run) => triggerNames.get(run.triggerId) ?? shortId(run.triggerId),
    worker: (run) => run.workerId === null ? "—" : workerLabels.get(run.workerId) ?? shortId(run.workerId),
    attempt: (run) => String(run.attempt),
    created: (run) => timeEl(run.createdAt),
    duration: (run) => formatDuration(run.durationMs),
    cost: (run) => formatCost(run.costUsd),
    tags: (run) => run.tags.length === 0 ? "—" : run.tags.join(", ")
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
  const runsTable = table("Runs, newest first",
    [...(operator ? ["Select"] : []), "Run", "Status", "Trigger", "Worker", "Attempt", "Created", "Duration", "Cost", "Tags"],
    tbodyRows.length > 0 ? tbodyRows : [emptyRow(columns.length, "No runs match these filters.")],
    { class: "runs", "aria-live": "off" })
  const tbody = runsTable.querySelector("tbody")

  const pager = el("nav", { class: "pager", "aria-label": "Pages of runs" },
    cursor === "" ? undefined : el("a", { href: `#/runs${query({ ...filters })}` }, "← Newest runs"),
    first.body.nextCursor === null ? undefined : el("a", { href: `#/runs${query({ ...filters, cursor: first.body.nextCursor })}` }, "Older runs →"))
  const liveNote = el("p", { class: "hint", "data-live": cursor === "" ? "connecting" : "off" },
    cursor === "" ? "Connecting to live updates…" : "An older page: it does not update by itself.")

  const bulk = bulkBar(ctx, filters, selected, () => {
    selected.clear()
    for (const { tr, run } of rows.values()) fill(tr, run)
  })
  ctx.show(title, filterForm, ...(operator ? [bulk.node] : []), liveNote, runsTable, pager)

  if (cursor !== "") return
  // Live updates: a run already shown changes in place; a new one that matches
  // the filters takes its place by id (ids grow with creation time), and the
  // page keeps its length. Applied once per animation frame, the latest state
  // of each run only, however many events arrived meanwhile.
  const apply = frameBatcher((latest) => {
    const fresh = []
    for (const { run: latestRun, read, reasons } of latest) {
      let run = latestRun
      const known = rows.get(run.id)
      if (reasons) {
        // On the first page as just read, yet not shown: its event never came (a burst, a
        // reconnect between two reads). The read puts it in its place, as the stream would have.
        if (known === undefined) {
          if (matches(filters, run)) fresh.push(run)
          continue
        }
        // A read for wait reasons alone may have started before an event already applied:
        // it changes nothing but the reason of a run both still call queued.
        if (known.run.status !== "queued" || run.status !== "queued") continue
        run = { ...known.run, waitReason: run.waitReason, waitPool: run.waitPool }
      }
      if (known !== undefined) {
        // An event carries no wait reason (it is computed when a run is read): a run still
        // queued keeps the one it was read with until the next read says otherwise.
        if (!read && run.status === "queued" && run.waitReason === null && known.run.status === "queued") {
          run = { ...run, waitReason: known.run.waitReason, waitPool: known.run.waitPool }
        }
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
  }, ({ run }) => run.id)
  const states = {
    live: "Live: runs appear and change here as they happen.",
    reconnecting: "Live updates interrupted; reconnecting…",
    paused: "Live updates paused while this tab is hidden."
  }
  const reread = async (reasons = false) => {
    const res = await api("GET", listPath(ctx.env.id, filters, ""))
    if (ctx.live() && res.status === 200) for (const run of res.body.items) apply({ run, read: true, reasons })
  }
  // Why a queued run waits changes when other runs move (a place frees, a pool
  // fills), and events carry no reason: while queued runs are shown, the page
  // is read once more after the events of a second, so their reasons stay true.
  let rereadTimer
  // Some changes of reason have no run event at all (a worker goes offline):
  // every 5 s as well, while queued runs are shown.
  const quiet = setInterval(() => {
    if (ctx.live() && [...rows.values()].some(({ run }) => run.status === "queued")) void reread(true)
  }, quietReasonsMs)
  const rereadSoon = () => {
    if (rereadTimer !== undefined) return
    rereadTimer = setTimeout(() => {
      rereadTimer = undefined
      if (ctx.live() && [...rows.values()].some(({ run }) => run.status === "queued")) void reread(true)
    }, reasonsMs)
  }
  const stop = followRuns(ctx.env.id, {
    onRun: (run) => {
      apply({ run, read: false })
      rereadSoon()
    },
    // Whatever changed before the stream was (re)connected: read the first page once more.
    onOpen: () => reread(),
    onState: (state) => {
      liveNote.dataset.live = state
      liveNote.textContent = states[state]
    }
  })
  ctx.onLeave(() => {
    stop()
    clearTimeout(rereadTimer)
    clearInterval(quiet)
  })
}

const pending = new Set()
const ended = (b) => b.state === "completed" || b.state === "cancelled"
const progressText = (b) =>
  `${b.action === "cancel" ? "Cancel" : "Replay"}: ${b.done} of ${b.matched} done` +
  `${b.skipped > 0 ? `, ${b.skipped} skipped (${b.skippedReasons.alreadyEnded} already ended, ${b.skippedReasons.notVisible} not visible)` : ""}` +
  `${b.failed > 0 ? `, ${b.failed} failed (${b.lastError})` : ""} · ${b.state}`

/**
 * The bulk bar: Cancel or Replay the selected runs, or all runs matching the
 * filters (a bulk action's filter: status, trigger, tag, from, to; not
 * worker), confirmed with the count; then the bulk action's progress, read
 * every second until it ends (it works on in the background meanwhile).
 */
const bulkBar = (ctx, filters, selected, clearSelection) => {
  const count = el("span", { class: "hint" })
  const note = el("p", { role: "status", class: "bulk-progress" })
  const failure = alertBox()
  const allMatching = el("input", { type: "checkbox", name: "allMatching" })
  const filter = Object.fromEntries(
    Object.entries({ status: filters.status, triggerId: filters.triggerId, tag: filters.tag, from: filters.from, to: filters.to })
      .filter(([, v]) => v !== "")
  )
  // Without a condition there is no "all matching": a bulk action needs one (and the worker filter is not one).
  const filterable = Object.keys(filter).length > 0 && filters.workerId === ""
  const follow = (id) => {
    const look = async () => {
      if (!ctx.live()) return
      const res = await api("GET", `/bulk-actions/${id}`)
      if (res.status !== 200) return void (failure.textContent = messageOf(res))
      note.textContent = progressText(res.body)
      if (!ended(res.body)) setTimeout(() => void look(), 1000)
      else pending.delete(id)
    }
    void look()
  }
  const act = (action) => async () => {
    failure.textContent = ""
    const body = allMatching.checked ? { action, filter } : { action, runIds: [...selected] }
    let matched = selected.size
    if (allMatching.checked) {
      const preview = await api("POST", `/environments/${ctx.env.id}/bulk-actions/preview`, body)
      if (preview.status !== 200) return void (failure.textContent = messageOf(preview))
      matched = preview.body.matched
    }
    if (matched === 0) return void (failure.textContent = "No run to act on.")
    const what = action === "cancel" ? "Cancel" : "Replay"
    const ok = await confirmDialog(`${what} ${matched} run${matched === 1 ? "" : "s"}?`,
      action === "cancel"
        ? "Runs that have not ended are cancelled (those with a worker when it stops them); ended ones are skipped."
        : "Each run gets a new run of its trigger with the same input and tags, linked to it.",
      `${what} ${matched}`, "Keep them")
    if (!ok) return
    const res = await api("POST", `/environments/${ctx.env.id}/bulk-actions`, body)
    if (res.status !== 201) return void (failure.textContent = messageOf(res))
    clearSelection()
    bar.update()
    pending.add(res.body.id)
    note.textContent = progressText(res.body)
    follow(res.body.id)
  }
  const cancelButton = el("button", { type: "button", class: "danger", onclick: act("cancel") }, "Cancel runs")
  const replayButton = el("button", { type: "button", class: "secondary", onclick: act("replay") }, "Replay runs")
  const bar = {
    node: el("div", { class: "bulk-bar", role: "group", "aria-label": "Bulk actions" },
      count,
      filterable ? el("label", {}, allMatching, " All runs matching these filters") : undefined,
      cancelButton, replayButton, note, failure),
    update: () => {
      const none = selected.size === 0 && !allMatching.checked
      cancelButton.disabled = none
      replayButton.disabled = none
      count.textContent = allMatching.checked ? "All matching runs" : `${selected.size} selected`
    }
  }
  allMatching.addEventListener("change", () => bar.update())
  bar.update()
  // A bulk action started before this page was drawn (another visit) is still followed.
  for (const id of pending) follow(id)
  return bar
}
