// One run: its status and times, input, output, cost and duration, retry
// lineage both ways and the webhook deliveries of it; Cancel and Redeliver
// webhook for the roles that may. Repainted from the environment's event
// stream whenever the run (or a retry of it) moves.
import { all, api, messageOf, query } from "./api.js"
import { alertBox, confirmDialog, el, formatCost, formatDuration, jsonBlock, shortId, statusBadge, table, timeEl } from "./dom.js"
import { followRuns } from "./events.js"
import { terminalStatuses } from "./statuses.js"

const refreshMs = 2000

/** `{run}` (the run detail: the run object with `triggerName`, `retriedByRunId`, `delivery`, `cancelRequestedAt`), `{}` when not found, `{res}` on another failure. */
const loadRun = async (id) => {
  const res = await api("GET", `/runs/${encodeURIComponent(id)}`)
  if (res.status === 200) return { run: res.body }
  if (res.status === 404) return {}
  return { res }
}

/** The deliveries of this run: the trigger's history, newest first, read back to the run's creation. */
const deliveriesOf = async (run) => {
  const found = []
  let cursor
  for (let i = 0; i < 10; i++) {
    const res = await api("GET", `/triggers/${run.triggerId}/webhook-deliveries${query({ cursor, limit: 200 })}`)
    if (res.status !== 200) return { res, items: found }
    found.push(...res.body.items.filter((d) => d.runId === run.id))
    const oldest = res.body.items.at(-1)
    cursor = res.body.nextCursor
    if (!cursor || oldest === undefined || oldest.createdAt < run.createdAt) break
  }
  return { items: found }
}

/** The run's stored transitions, in order: when, the status after the step, why, and the worker concerned. */
const timelineOf = (res, workerName) => {
  if (res.status !== 200) return alertBox(messageOf(res))
  if (res.body.items.length === 0) return el("p", {}, "No steps recorded.")
  return el("ol", { class: "timeline", "aria-label": "Timeline" }, res.body.items.map((e) =>
    el("li", {}, timeEl(e.at), " ", statusBadge(e.status), " ", el("span", { class: "reason" }, e.reason.replaceAll("_", " ")),
      e.workerId === null ? undefined : el("span", { class: "hint" }, ` · worker ${workerName(e.workerId)}`))))
}

const row = (label, value) => [el("dt", {}, label), el("dd", {}, value)]

const runLink = (id, text) => el("a", { href: `#/runs/${id}` }, text ?? `Run …${shortId(id)}`)

const deliveriesTable = (items) =>
  items.length === 0
    ? el("p", {}, "No webhook delivery for this run.")
    : table("Webhook deliveries of this run", ["Sent", "Kind", "Outcome", "Status code", "Attempts", "URL", "Error", "Response body"],
      items.map((d) => el("tr", {},
        el("td", {}, timeEl(d.createdAt)),
        el("td", {}, d.trigger ?? "automatic"),
        el("td", {}, statusBadge(d.outcome)),
        el("td", {}, d.statusCode === null ? "none" : String(d.statusCode)),
        el("td", {}, String(d.attemptCount)),
        el("td", { class: "wrap" }, d.url),
        el("td", { class: "wrap" }, d.errorMessage ?? "—"),
        el("td", {}, d.responseBody === null || d.responseBody === ""
          ? "—"
          : el("details", {}, el("summary", {}, "Show body"), el("pre", { class: "code" }, d.responseBody))))))

export const render = async (ctx, { id }) => {
  const title = el("h1", {}, `Run …${shortId(id)}`)
  const found = await loadRun(id)
  if (found.res !== undefined) return ctx.show(title, alertBox(messageOf(found.res)))
  if (found.run === undefined) {
    return ctx.show(title, alertBox("This run was not found in this environment."), el("p", {}, el("a", { href: "#/runs" }, "Back to the runs")))
  }
  if (found.run.environmentId !== ctx.env.id) {
    const other = ctx.environments.find((e) => e.id === found.run.environmentId)
    return ctx.show(title, alertBox(`This run belongs to another environment${other ? ` (${other.name})` : ""}; switch to it above to see the run.`))
  }
  const body = el("div", {})
  const workers = await all(`/environments/${ctx.env.id}/workers`)
  const labels = new Map(workers.items.map((w) => [w.id, w.label]))
  const workerName = (workerId) => labels.get(workerId) ?? `…${shortId(workerId)}`
  ctx.show(el("p", {}, el("a", { href: "#/runs" }, "← Runs")), title, body)

  // What the buttons below answered; kept across repaints.
  const note = el("p", { role: "status" })
  const failure = alertBox()
  const said = (text, isError = false) => {
    note.textContent = isError ? "" : text
    failure.textContent = isError ? text : ""
  }

  // Operators and above may stop a run that has not ended (POST /runs/{id}/cancel).
  // A run its worker holds ends later: the note then says how it ended.
  let cancelAsked = false
  const cancelControl = (run) => {
    if (terminalStatuses.includes(run.status) || run.cancelRequestedAt !== null || !ctx.can("operator")) return undefined
    return el("button", {
      type: "button",
      class: "danger",
      onclick: async () => {
        said("")
        const ok = await confirmDialog("Cancel this run?",
          "A run no worker holds yet ends at once; a claimed or running run is stopped by its worker and then ends cancelled. It is not retried.",
          "Cancel run", "Keep it")
        if (!ok) return
        const res = await api("POST", `/runs/${run.id}/cancel`)
        if (res.status === 200) {
          cancelAsked = res.body.status !== "cancelled"
          said(cancelAsked ? "Cancel requested: the worker is stopping the run." : "Run cancelled.")
        }
        else if (res.status === 409) said(`Not cancelled: ${res.body?.error ?? "the run has already ended"}.`, true)
        else said(messageOf(res), true)
        await repaint()
      }
    }, "Cancel run")
  }

  // Operators and above may send a terminal run's webhook again (POST /runs/{id}/webhook-deliveries).
  const redeliverControl = (run, trigger) => {
    if (!ctx.can("operator") || !terminalStatuses.includes(run.status) || trigger.status !== 200 || trigger.body.webhookUrl === null) return undefined
    return el("button", {
      type: "button",
      class: "secondary",
      onclick: async () => {
        said("")
        const res = await api("POST", `/runs/${run.id}/webhook-deliveries`)
        if (res.status !== 202) return said(messageOf(res), true)
        said("Redelivery queued; it appears below once sent.")
        // Deliveries are not run events: look for the new one a few times.
        for (const ms of [1500, 4000, 8000]) setTimeout(() => void repaint(), ms)
      }
    }, "Redeliver webhook")
  }

  const paint = async (run) => {
    const [trigger, deliveries, timeline] = await Promise.all([
      api("GET", `/triggers/${run.triggerId}`),
      terminalStatuses.includes(run.status) ? deliveriesOf(run) : Promise.resolve({ items: [] }),
      api("GET", `/runs/${run.id}/events`)
    ])
    if (!ctx.live()) return false
    const triggerName = trigger.status === 200 ? trigger.body.name : `${run.triggerName} (deleted)`
    // The history is read back a few pages; a delivery older than that is still the detail's latest one.
    if (deliveries.res === undefined && deliveries.items.length === 0 && run.delivery !== null) deliveries.items.push(run.delivery)
    const ended = terminalStatuses.includes(run.status)
    const buttons = [cancelControl(run), redeliverControl(run, trigger)].filter((b) => b !== undefined)
    if (ended && cancelAsked) {
      cancelAsked = false
      said(run.status === "cancelled" ? "Run cancelled." : `The run ended ${run.status.replace("_", " ")} before its worker stopped it.`)
    }
    title.replaceChildren(`Run …${shortId(run.id)} · ${triggerName}`)
    body.replaceChildren(
      el("p", { class: "run-status" }, "Status: ", statusBadge(run.status),
        run.faultClass !== null && run.faultClass !== "none" ? ` (fault: ${run.faultClass})` : undefined,
        !ended && run.cancelRequestedAt !== null ? el("span", { class: "cancel-requested" }, " · cancel requested ", timeEl(run.cancelRequestedAt)) : undefined),
      buttons.length === 0 ? undefined : el("div", { class: "actions" }, buttons),
      note, failure,
      el("dl", { class: "facts" },
        row("Run id", el("code", {}, run.id)),
        row("Trigger", trigger.status === 200 ? el("a", { href: `#/triggers/${run.triggerId}` }, triggerName) : triggerName),
        row("Worker", run.workerId === null ? "not assigned" : el("a", { href: `#/runs?workerId=${run.workerId}` }, workerName(run.workerId))),
        row("Attempt", String(run.attempt)),
        row("Retry of", run.retryOfRunId === null ? "— (first attempt)" : runLink(run.retryOfRunId)),
        row("Retried by", run.retriedByRunId === null ? "—" : runLink(run.retriedByRunId)),
        row("Duration", formatDuration(run.durationMs)),
        row("Cost", formatCost(run.costUsd)),
        row("Created", timeEl(run.createdAt)),
        row("Assigned", timeEl(run.assignedAt)),
        row("Claimed", timeEl(run.claimedAt)),
        row("Started", timeEl(run.startedAt)),
        row("Last heartbeat", timeEl(run.lastHeartbeatAt)),
        row("Ended", timeEl(run.endedAt))),
      el("h2", {}, "Timeline"), timelineOf(timeline, workerName),
      el("h2", {}, "Input"), jsonBlock(run.input, "Input"),
      el("h2", {}, "Output"),
      el("h3", {}, "Short message (stdout)"),
      el("pre", { class: "code", tabindex: "0", "aria-label": "Short message" }, run.shortMessage ?? "—"),
      el("h3", {}, "Error message (stderr)"),
      el("pre", { class: "code", tabindex: "0", "aria-label": "Error message" }, run.errorMessage ?? "—"),
      el("h2", {}, "Webhook deliveries"),
      deliveries.res === undefined ? deliveriesTable(deliveries.items) : alertBox(messageOf(deliveries.res))
    )
    // A terminal run of a trigger with a webhook gets its delivery record shortly after it ends.
    return ended && run.delivery === null && trigger.status === 200 && trigger.body.webhookUrl !== null
  }

  // One repaint at a time; asked for while one runs, it runs once more afterwards.
  let painting = false
  let dirty = false
  let deliveryTimer
  let deliveryChecks = 0
  const repaint = async () => {
    if (painting) return void (dirty = true)
    painting = true
    try {
      do {
        dirty = false
        const again = await loadRun(id)
        if (!ctx.live() || again.run === undefined) return
        awaitDelivery(await paint(again.run))
      } while (dirty && ctx.live())
    } finally {
      painting = false
    }
  }
  // Webhook deliveries are not run events: until the ended run's first one is recorded, look again now and then.
  const awaitDelivery = (awaiting) => {
    clearTimeout(deliveryTimer)
    if (awaiting && deliveryChecks < 30 && ctx.live()) {
      deliveryTimer = setTimeout(() => {
        deliveryChecks += 1
        void repaint()
      }, refreshMs)
    }
  }

  awaitDelivery(await paint(found.run))
  const stop = followRuns(ctx.env.id, {
    // The run itself moved, or a retry of it was created (its "Retried by" link).
    onRun: (run) => {
      if (run.id === id || run.retryOfRunId === id) void repaint()
    },
    onOpen: () => void repaint()
  })
  ctx.onLeave(() => {
    stop()
    clearTimeout(deliveryTimer)
  })
}
