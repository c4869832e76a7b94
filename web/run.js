// One run: its status and times, input, output, cost and duration, retry
// lineage both ways and the webhook deliveries of it; Cancel and Redeliver
// webhook for the roles that may. Repainted from the environment's event
// stream whenever the run (or a retry of it) moves.
import { all, api, messageOf, query } from "./api.js"
import { alertBox, confirmDialog, el, formatCost, formatDuration, jsonBlock, shortId, statusBadge, table, timeEl, waitNote } from "./dom.js"
import { followRuns } from "./events.js"
import { logView } from "./runlog.js"
import { terminalStatuses } from "./contract.js"

const refreshMs = 2000
/** How often a queued run's wait reason is read again while its page is open. */
const reasonMs = 5000

/** `{run}` (the run detail: the run object with `triggerName`, `retriedByRunId`, `delivery`, `cancelRequestedAt`), `{}` when not found, `{res}` on another failure. */
const loadRun = async (id) => {
  const res = await api("GET", `/runs/${encodeURIComponent(id)}`)
  if (res.status === 200) return { run: res.body }
  if (res.status === 404) return {}
  return { res }
}

/** The deliveries of this run, newest first (`GET /runs/{id}/webhook-deliveries`; a run has a handful). */
const deliveriesOf = async (run) => {
  const res = await api("GET", `/runs/${run.id}/webhook-deliveries${query({ limit: 200 })}`)
  return res.status === 200 ? { items: res.body.items } : { res, items: [] }
}

/** The trigger's limits and the places its runs hold now, in words. */
const concurrencyOf = (trigger, pool) => {
  const c = trigger.status === 200 ? trigger.body.concurrency : null
  if (c === null || c === undefined) return "no limits"
  const parts = [
    c.limit === null ? undefined : `limit ${c.limit}`,
    c.perKey === null ? undefined : `${c.perKey} per key`,
    c.keyFrom === null ? undefined : `key from input.${c.keyFrom}`
  ].filter((p) => p !== undefined)
  const own = `${parts.length === 0 ? "no limit of its own" : parts.join(", ")} · ${c.inUse} in use`
  if (c.pool === null) return own
  return pool === undefined ? `${own} · pool ${c.pool}` : `${own} · pool ${pool.name}: limit ${pool.limit}, ${pool.inUse} in use`
}

/** The trigger's pool as the pools listing shows it (limit and places in use), when it has one. */
const poolOf = async (run, trigger) => {
  const name = trigger.status === 200 ? trigger.body.concurrency?.pool ?? null : null
  if (name === null) return undefined
  const res = await api("GET", `/environments/${run.environmentId}/concurrency-pools?limit=200`)
  return res.status === 200 ? res.body.items.find((p) => p.name === name) : undefined
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

/** " · starts in 4 min" for a run waiting for its `availableAt` (delayed, or a retry's backoff); nothing otherwise. */
export const startsIn = (run) =>
  run.status === "queued" && run.availableAt !== null && (run.waitReason === "delayed" || run.waitReason === "retry_backoff")
    ? el("span", { class: "hint" }, " · ", countdown(run.availableAt))
    : undefined

/** "starts in 4 min" until `at`, counting down by itself (every second) while it is in the page. */
export const countdown = (at) => {
  const node = el("span", { class: "countdown" })
  const tick = () => {
    const ms = Date.parse(at) - Date.now()
    node.textContent = ms <= 0 ? "starting now" : `starts in ${inWords(ms)}`
    if (ms > 0 && (node.isConnected || !node.dataset.started)) {
      node.dataset.started = "1"
      setTimeout(tick, 1000)
    }
  }
  tick()
  return node
}

const inWords = (ms) => {
  const s = Math.ceil(ms / 1000)
  if (s < 60) return `${s} s`
  if (s < 3600) return `${Math.round(s / 60)} min`
  if (s < 86_400) return `${Math.floor(s / 3600)} h ${Math.round((s % 3600) / 60)} min`
  return `${Math.floor(s / 86_400)} d ${Math.round((s % 86_400) / 3600)} h`
}

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

export const render = async (ctx, { id, params }) => {
  const title = el("h1", {}, `Run …${shortId(id)}`)
  // The log starts loading at once, beside the run itself (its endpoint checks visibility as the run's does).
  let active = true
  const lineParam = Number(params?.get("line"))
  const log = logView(id, { active: () => active, line: Number.isSafeInteger(lineParam) && lineParam > 0 ? lineParam : undefined })
  const found = await loadRun(id)
  if (found.run === undefined || found.run.environmentId !== ctx.env.id) log.stop()
  if (found.res !== undefined) return ctx.show(title, alertBox(messageOf(found.res)))
  if (found.run === undefined) {
    return ctx.show(title, alertBox("This run was not found in this environment."), el("p", {}, el("a", { href: "#/runs" }, "Back to the runs")))
  }
  if (found.run.environmentId !== ctx.env.id) {
    const other = ctx.environments.find((e) => e.id === found.run.environmentId)
    return ctx.show(title, alertBox(`This run belongs to another environment${other ? ` (${other.name})` : ""}; switch to it above to see the run.`))
  }
  const body = el("div", {})
  active = !terminalStatuses.includes(found.run.status)
  // Shown before the rest is read, so the log's first lines appear at once. The log lives beside
  // the repainted part: repaints never reload or reset it.
  ctx.show(el("p", {}, el("a", { href: "#/runs" }, "← Runs")), title, body, el("h2", {}, "Log"), log.node)
  const workers = await all(`/environments/${ctx.env.id}/workers`)
  if (!ctx.live()) return log.stop()
  const labels = new Map(workers.items.map((w) => [w.id, w.label]))
  const workerName = (workerId) => labels.get(workerId) ?? `…${shortId(workerId)}`

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

  // Operators and above may start a delayed run now (PATCH /runs/{id} with delaySeconds 0).
  const startNowControl = (run) => {
    if (run.status !== "queued" || (run.waitReason !== "delayed" && run.waitReason !== "retry_backoff") || !ctx.can("operator")) return undefined
    return el("button", {
      type: "button",
      class: "secondary",
      onclick: async () => {
        said("")
        const res = await api("PATCH", `/runs/${run.id}`, { delaySeconds: 0 })
        if (res.status === 200) said("Starting now: the run goes to the next free worker.")
        else if (res.status === 409) said(`Not started: ${res.body?.error ?? "the run was already placed"}.`, true)
        else said(messageOf(res), true)
        await repaint()
      }
    }, "Start now")
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

  // Operators and above may run it again (POST /runs/{id}/replay): as it was, or with an edited input.
  // Built once per page: a repaint (live events, the wait reason's re-read) puts the same elements back,
  // so an input being edited stays open with what was typed.
  let replayElements
  const replayControls = (run) => {
    if (!ctx.can("operator")) return []
    return replayElements ??= makeReplayControls(run)
  }
  const makeReplayControls = (run) => {
    const replay = async (body) => {
      said("")
      const res = await api("POST", `/runs/${run.id}/replay`, body)
      if (res.status !== 201) return said(messageOf(res), true)
      ctx.go(`#/runs/${res.body.id}`)
    }
    const editor = el("textarea", { name: "input", rows: "6", class: "code", "aria-label": "Input of the replay" })
    const editForm = el("form", { class: "replay-edit", hidden: "" },
      el("label", {}, "Input of the replay (JSON)", editor),
      el("div", { class: "actions" },
        el("button", { type: "submit" }, "Replay with this input"),
        el("button", { type: "button", class: "secondary", onclick: () => editForm.setAttribute("hidden", "") }, "Close")))
    editForm.addEventListener("submit", (event) => {
      event.preventDefault()
      let input
      try {
        input = JSON.parse(editor.value)
      } catch {
        return said("The input is not valid JSON.", true)
      }
      void replay({ input })
    })
    return [
      el("button", { type: "button", class: "secondary", onclick: () => void replay(undefined) }, "Replay"),
      el("button", {
        type: "button",
        class: "secondary",
        onclick: () => {
          editor.value = JSON.stringify(run.input, null, 2)
          editForm.removeAttribute("hidden")
          editor.focus()
        }
      }, "Replay with edited input"),
      editForm
    ]
  }

  let shown
  const paint = async (run) => {
    shown = run
    const [trigger, deliveries, timeline] = await Promise.all([
      api("GET", `/triggers/${run.triggerId}`),
      terminalStatuses.includes(run.status) ? deliveriesOf(run) : Promise.resolve({ items: [] }),
      api("GET", `/runs/${run.id}/events`)
    ])
    const pool = await poolOf(run, trigger)
    if (!ctx.live()) return false
    const triggerName = trigger.status === 200 ? trigger.body.name : `${run.triggerName} (deleted)`
    const ended = terminalStatuses.includes(run.status)
    active = !ended
    const buttons = [startNowControl(run), cancelControl(run), redeliverControl(run, trigger), ...replayControls(run)].filter((b) => b !== undefined)
    if (ended && cancelAsked) {
      cancelAsked = false
      said(run.status === "cancelled" ? "Run cancelled." : `The run ended ${run.status.replace("_", " ")} before its worker stopped it.`)
    }
    title.replaceChildren(`Run …${shortId(run.id)} · ${triggerName}`)
    body.replaceChildren(
      el("p", { class: "run-status" }, "Status: ", statusBadge(run.status),
        run.faultClass !== null && run.faultClass !== "none" ? ` (fault: ${run.faultClass})` : undefined,
        !ended && run.cancelRequestedAt !== null ? el("span", { class: "cancel-requested" }, " · cancel requested ", timeEl(run.cancelRequestedAt)) : undefined,
        waitNote(run), startsIn(run)),
      buttons.length === 0 ? undefined : el("div", { class: "actions" }, buttons),
      note, failure,
      el("dl", { class: "facts" },
        row("Run id", el("code", {}, run.id)),
        row("Trigger", trigger.status === 200 ? el("a", { href: `#/triggers/${run.triggerId}` }, triggerName) : triggerName),
        row("Worker", run.workerId === null ? "not assigned" : el("a", { href: `#/runs?workerId=${run.workerId}` }, workerName(run.workerId))),
        row("Attempt", String(run.attempt)),
        row("Retry of", run.retryOfRunId === null ? "— (first attempt)" : runLink(run.retryOfRunId)),
        row("Retried by", run.retriedByRunId === null ? "—" : runLink(run.retriedByRunId)),
        row("Replay of", run.replayOfRunId === null ? "—" : runLink(run.replayOfRunId)),
        row("Tags", run.tags.length === 0 ? "—" : el("span", { class: "tags" },
          ...run.tags.map((tag) => el("a", { href: `#/runs?tag=${encodeURIComponent(tag)}`, class: "tag" }, tag)))),
        row("Duration", formatDuration(run.durationMs)),
        row("Cost", formatCost(run.costUsd)),
        row("Created", timeEl(run.createdAt)),
        row("Available from", run.availableAt === null ? "at once" : timeEl(run.availableAt)),
        row("Priority", run.priority === 0 ? "0 (normal)" : `${run.priority > 0 ? "+" : ""}${run.priority} s`),
        row("Expires if not claimed", run.expiresAt === null ? "never" : timeEl(run.expiresAt)),
        row("Assigned", timeEl(run.assignedAt)),
        row("Claimed", timeEl(run.claimedAt)),
        row("Started", timeEl(run.startedAt)),
        row("Last heartbeat", timeEl(run.lastHeartbeatAt)),
        row("Ended", timeEl(run.endedAt)),
        // Last, so the rows above keep their places.
        row("Concurrency key", run.concurrencyKey ?? "—"),
        row("Trigger's concurrency", concurrencyOf(trigger, pool))),
      el("h2", {}, "Timeline"), timelineOf(timeline, workerName),
      el("h2", {}, "Input"), jsonBlock(run.input, "Input"),
      el("h2", {}, "Result"),
      run.output === null || run.output === undefined ? el("p", {}, "No result reported.") : jsonBlock(run.output, "Result"),
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
  // Why a queued run waits can change with no event of its own (a worker goes
  // offline, a pool fills): while it is queued, its reason is read again now and then.
  const reasons = setInterval(async () => {
    if (!ctx.live() || shown?.status !== "queued") return
    const again = await loadRun(id)
    if (again.run !== undefined && (again.run.waitReason !== shown.waitReason || again.run.waitPool !== shown.waitPool)) void repaint()
  }, reasonMs)
  ctx.onLeave(() => {
    stop()
    log.stop()
    clearTimeout(deliveryTimer)
    clearInterval(reasons)
  })
}
