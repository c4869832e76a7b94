// Triggers: the list; create and edit forms whose server errors appear beside
// their fields; Run now with optional JSON input checked before it is sent;
// rotating the MCP token (shown once); delete.
import { all, api, messageOf } from "./api.js"
import { alertBox, apiForm, confirmDialog, control, el, emptyRow, secretBox, shortId, table, timeEl } from "./dom.js"

/** A 400 of our own making, shaped like the server's, for a field the browser can already tell is wrong. */
const invalid = (field, message) => ({ status: 400, body: { error: "Invalid request", details: { fieldErrors: { [field]: [message] }, formErrors: [] } } })

/** JSON text → `{value}`, `{}` when empty, `{error}` when it does not parse. */
const parseJson = (text) => {
  if (text.trim() === "") return {}
  try {
    return { value: JSON.parse(text) }
  } catch (error) {
    return { error: `is not valid JSON (${error.message})` }
  }
}

const typeOf = (value) => value === null ? "null" : Array.isArray(value) ? "array" : typeof value
const typeMatches = (type, value) =>
  type === "integer" ? Number.isInteger(value) : type === "number" ? typeof value === "number" : typeOf(value) === type

/**
 * A first check of a run's input against the trigger's inputSchema, before
 * it is sent: the common keywords only (type, required, properties, items,
 * enum, lengths and bounds). The server checks every keyword and has the
 * last word; its 400 names the path too. Answers the first failure as
 * "input.path: message", or undefined.
 */
const checkInput = (schema, value, path = "input") => {
  if (schema === true || schema === null || typeof schema !== "object") return undefined
  if (schema === false) return `${path}: is not allowed`
  if (schema.type !== undefined) {
    const types = Array.isArray(schema.type) ? schema.type : [schema.type]
    if (!types.some((t) => typeMatches(t, value))) return `${path}: must be ${types.join(" or ")}`
  }
  if (Array.isArray(schema.enum) && !schema.enum.some((e) => JSON.stringify(e) === JSON.stringify(value))) {
    return `${path}: must be one of ${schema.enum.map((e) => JSON.stringify(e)).join(", ")}`
  }
  if (typeof value === "string") {
    if (typeof schema.minLength === "number" && value.length < schema.minLength) return `${path}: must be at least ${schema.minLength} characters`
    if (typeof schema.maxLength === "number" && value.length > schema.maxLength) return `${path}: must be at most ${schema.maxLength} characters`
  }
  if (typeof value === "number") {
    if (typeof schema.minimum === "number" && value < schema.minimum) return `${path}: must be >= ${schema.minimum}`
    if (typeof schema.maximum === "number" && value > schema.maximum) return `${path}: must be <= ${schema.maximum}`
  }
  if (typeOf(value) === "object") {
    for (const key of Array.isArray(schema.required) ? schema.required : []) {
      if (!(key in value)) return `${path}.${key}: is required`
    }
    for (const [key, sub] of Object.entries(schema.properties ?? {})) {
      if (key in value) {
        const failed = checkInput(sub, value[key], `${path}.${key}`)
        if (failed !== undefined) return failed
      }
    }
  }
  if (Array.isArray(value) && schema.items !== undefined) {
    for (const [i, item] of value.entries()) {
      const failed = checkInput(schema.items, item, `${path}[${i}]`)
      if (failed !== undefined) return failed
    }
  }
  return undefined
}

/** A number field's value as a number when it is one; otherwise as typed, so the server names the problem. */
const numberOf = (text) => text.trim() === "" ? undefined : Number.isFinite(Number(text)) ? Number(text) : text

/**
 * The schedule as one field of three controls: the server reports every
 * schedule problem under `schedule`, each message naming its sub-field
 * ("cron …", "timezone …", "catchUp …"), so each goes beside its control.
 */
const scheduleField = (schedule) => {
  const parts = {
    cron: control("Cron expression", "input", { name: "cron", class: "mono", value: schedule?.cron ?? "", placeholder: "30 2 * * *" }, [],
      "Runs the trigger at each tick: minute hour day-of-month month day-of-week (6 fields: seconds first). Empty: no schedule."),
    timezone: control("Time zone", "input", { name: "timezone", value: schedule?.timezone ?? "", placeholder: "UTC" }, [],
      "An IANA name such as Europe/Berlin; empty: UTC."),
    catchUp: control("After downtime", "select", { name: "catchUp", value: schedule?.catchUp ?? "latest" },
      [["latest", "Run the latest missed tick"], ["none", "Skip missed ticks"]])
  }
  let focus = parts.cron.input
  return {
    node: el("fieldset", { class: "schedule" }, el("legend", {}, "Schedule"), Object.values(parts).map((p) => p.node)),
    get input() {
      return focus
    },
    setError: (text) => {
      for (const p of Object.values(parts)) p.setError(text)
    },
    setErrors: (messages) => {
      const by = new Map()
      for (const m of messages) {
        const name = /^(timezone|catchUp)\b/.exec(m)?.[1] ?? "cron"
        by.set(name, [...by.get(name) ?? [], m])
      }
      for (const [name, p] of Object.entries(parts)) p.setError(by.get(name)?.join(" "))
      focus = parts[[...by.keys()][0] ?? "cron"].input
    },
    /** The request's `schedule`: null (none, or stop it) when the expression is empty. */
    value: () => {
      const cron = parts.cron.input.value.trim()
      if (cron === "") return null
      const timezone = parts.timezone.input.value.trim()
      return { cron, timezone: timezone === "" ? undefined : timezone, catchUp: parts.catchUp.input.value }
    }
  }
}

/**
 * Several controls the server reports under one field (`concurrency`,
 * `retry`): each message names its sub-field ("concurrency.limit must …"),
 * so it goes beside that control; one that names none goes beside the first.
 */
const groupField = (legend, name, parts, hint) => {
  let focus = Object.values(parts)[0].input
  return {
    parts,
    node: el("fieldset", { class: name }, el("legend", {}, legend), hint ? el("p", { class: "hint" }, hint) : undefined,
      Object.values(parts).map((p) => p.node)),
    get input() {
      return focus
    },
    setError: (text) => {
      for (const p of Object.values(parts)) p.setError(text)
    },
    setErrors: (messages) => {
      const by = new Map()
      const first = Object.keys(parts)[0]
      for (const m of messages) {
        const sub = new RegExp(`^${name}\\.(\\w+)`).exec(m)?.[1] ?? Object.keys(parts).find((k) => m.includes(k)) ?? first
        const key = sub in parts ? sub : first
        by.set(key, [...by.get(key) ?? [], m])
      }
      for (const [key, p] of Object.entries(parts)) p.setError(by.get(key)?.join(" "))
      focus = parts[[...by.keys()][0] ?? first].input
    }
  }
}

/** The trigger's concurrency (docs/flow-control.md): every control empty sends null (no limits). */
const concurrencyField = (c, pools) => {
  const field = groupField("Concurrency", "concurrency", {
    limit: control("Limit", "input", { name: "limit", inputmode: "numeric", value: c?.limit ?? "" }, [], "At most this many runs hold a place at once (1 to 10000). Empty: no limit."),
    perKey: control("Per key", "input", { name: "perKey", inputmode: "numeric", value: c?.perKey ?? "" }, [], "At most this many runs of one concurrency key. Empty: no limit."),
    keyFrom: control("Key from input field", "input", { name: "keyFrom", value: c?.keyFrom ?? "", placeholder: "tenant" }, [],
      "A top-level input field whose value is the run's key (a request's concurrencyKey wins). Empty: the request's key only."),
    pool: control("Pool", "select", { name: "pool", value: c?.pool ?? "" },
      [["", "No pool"], ...pools.map((p) => [p.name, `${p.name} (limit ${p.limit})`])], "A shared pool of this environment (see Pools).")
  }, "Changes apply to runs not yet placed.")
  const text = (k) => field.parts[k].input.value.trim()
  /** The request's `concurrency`: null when every control is empty. */
  field.value = () => {
    if (["limit", "perKey", "keyFrom", "pool"].every((k) => text(k) === "")) return null
    return {
      limit: text("limit") === "" ? null : numberOf(text("limit")),
      perKey: text("perKey") === "" ? null : numberOf(text("perKey")),
      keyFrom: text("keyFrom") === "" ? null : text("keyFrom"),
      pool: text("pool") === "" ? null : text("pool")
    }
  }
  return field
}

/** The retry backoff (docs/delays-and-retries.md): only the controls filled in are sent (a PATCH keeps the rest). */
const retryField = (r) => {
  const field = groupField("Retry backoff", "retry", {
    initialDelaySeconds: control("First delay (seconds)", "input", { name: "initialDelaySeconds", inputmode: "numeric", value: r?.initialDelaySeconds ?? "", placeholder: "0" }, [], "0 to 3600; 0 retries at once."),
    factor: control("Factor", "input", { name: "factor", inputmode: "decimal", value: r?.factor ?? "", placeholder: "2" }, [], "1 to 10: each delay is the previous one times this."),
    maxDelaySeconds: control("Longest delay (seconds)", "input", { name: "maxDelaySeconds", inputmode: "numeric", value: r?.maxDelaySeconds ?? "", placeholder: "3600" }, [], "0 to 86400."),
    jitter: control("Jitter", "input", { name: "jitter", inputmode: "decimal", value: r?.jitter ?? "", placeholder: "0" }, [], "0 to 1: each delay spread by ± this fraction.")
  })
  field.value = () => {
    const entries = Object.entries(field.parts).filter(([, p]) => p.input.value.trim() !== "").map(([k, p]) => [k, numberOf(p.input.value)])
    return entries.length === 0 ? undefined : Object.fromEntries(entries)
  }
  return field
}

/** The next tick in the reader's time, and in the schedule's own zone when that differs. */
const nextRunEl = (trigger) => {
  if (trigger.nextRunAt === null) return "—"
  const zone = trigger.schedule?.timezone
  if (zone === undefined || zone === Intl.DateTimeFormat().resolvedOptions().timeZone) return timeEl(trigger.nextRunAt)
  const there = new Intl.DateTimeFormat("sv-SE", { timeZone: zone, dateStyle: "short", timeStyle: "short" }).format(new Date(trigger.nextRunAt))
  return el("span", {}, timeEl(trigger.nextRunAt), el("span", { class: "hint" }, ` (${there} ${zone})`))
}

const scheduleText = (schedule) =>
  schedule === null ? "none" : `${schedule.cron} (${schedule.timezone}${schedule.catchUp === "none" ? ", missed ticks skipped" : ""})`

const triggerFields = (workers, pools, t, editing) => ({
  name: control("Name", "input", { name: "name", value: t?.name ?? "", maxlength: "200" }),
  description: control("Description", "textarea", { name: "description", rows: "2", value: t?.description ?? "" }),
  workerId: control("Worker", "select", { name: "workerId", value: t?.workerId ?? "" },
    // A revoked worker never runs anything again: not offered, unless it is the pin being edited (so saving keeps it visibly).
    [["", "Any online worker"], ...workers.filter((w) => w.status !== "revoked" || w.id === t?.workerId).map((w) => [w.id, `${w.label} (${w.status})`])],
    "Pin the runs to one worker, or let the scheduler pick the least busy online worker."),
  command: control("Command", "input", { name: "command", class: "mono", value: t?.command ?? "", placeholder: "make deploy" }, [],
    "What the worker runs for each run (the pipeline-worker agent: with /bin/sh -c). A run's input never changes it. Empty: none."),
  input: control("Input (JSON)", "textarea", { name: "input", rows: "4", class: "mono", value: t === undefined ? "" : JSON.stringify(t.input, null, 2) },
    [], "The default input of a run: data handed to the command as JSON on stdin and in PIPELINE_INPUT, never executed."),
  inputSchema: control("Input schema (JSON Schema)", "textarea", {
    name: "inputSchema",
    rows: "4",
    class: "mono",
    value: t?.inputSchema === null || t?.inputSchema === undefined ? "" : JSON.stringify(t.inputSchema, null, 2),
    placeholder: "{\"type\": \"object\", \"required\": [\"ref\"], \"properties\": {\"ref\": {\"type\": \"string\"}}}"
  }, [], "Every run's input must match it (draft 2020-12); a run request that does not is refused. Empty: any JSON."),
  timeoutSeconds: control("Time-out (seconds)", "input", { name: "timeoutSeconds", inputmode: "numeric", value: t?.timeoutSeconds ?? "", placeholder: "3600" }, [], "1 to 86400."),
  heartbeatTimeoutSeconds: control("Heartbeat time-out (seconds)", "input", { name: "heartbeatTimeoutSeconds", inputmode: "numeric", value: t?.heartbeatTimeoutSeconds ?? "", placeholder: "30" }, [], "5 to 3600."),
  maxRetries: control("Automatic retries", "input", { name: "maxRetries", inputmode: "numeric", value: t?.maxRetries ?? "", placeholder: "0" }, [], "0 to 10."),
  retry: retryField(t?.retry),
  ttlSeconds: control("Time-to-live (seconds)", "input", { name: "ttlSeconds", inputmode: "numeric", value: t?.ttlSeconds ?? "" }, [],
    "A run no worker claims this long after it may start ends expired (1 to 2592000). Empty: never."),
  concurrency: concurrencyField(t?.concurrency, pools),
  webhookUrl: control("Webhook URL", "input", { name: "webhookUrl", inputmode: "url", value: t?.webhookUrl ?? "", placeholder: "https://example.com/hooks/pipeline" }, [], "Receives a signed POST when a run ends. Empty: no webhook."),
  webhookSecret: control("Webhook secret", "input", { name: "webhookSecret", type: "password", autocomplete: "new-password" }, [],
    editing ? (t.hasWebhookSecret ? "A secret is set; leave empty to keep it." : "No secret is set.") + " 16 characters or more." : "16 characters or more; signs each webhook."),
  schedule: scheduleField(t?.schedule ?? null)
})

/** The request body from the form; a JSON input that does not parse is refused before anything is sent. */
const payloadOf = (fields) => {
  const input = parseJson(fields.input.input.value)
  if (input.error !== undefined) return { failure: invalid("input", input.error) }
  const inputSchema = parseJson(fields.inputSchema.input.value)
  if (inputSchema.error !== undefined) return { failure: invalid("inputSchema", inputSchema.error) }
  const text = (f) => fields[f].input.value
  const body = {
    name: text("name"),
    description: text("description") === "" ? null : text("description"),
    workerId: text("workerId") === "" ? null : text("workerId"),
    command: text("command").trim() === "" ? null : text("command"),
    timeoutSeconds: numberOf(text("timeoutSeconds")),
    heartbeatTimeoutSeconds: numberOf(text("heartbeatTimeoutSeconds")),
    maxRetries: numberOf(text("maxRetries")),
    webhookUrl: text("webhookUrl").trim() === "" ? null : text("webhookUrl").trim(),
    webhookSecret: text("webhookSecret") === "" ? undefined : text("webhookSecret"),
    schedule: fields.schedule.value(),
    ttlSeconds: text("ttlSeconds").trim() === "" ? null : numberOf(text("ttlSeconds")),
    concurrency: fields.concurrency.value(),
    retry: fields.retry.value()
  }
  if ("value" in input) body.input = input.value
  body.inputSchema = "value" in inputSchema ? inputSchema.value : null
  return { body }
}

/** A trigger's concurrency limits and the places its runs hold now (docs/flow-control.md). */
const concurrencyText = (c) => {
  if (c === null || c === undefined) return "no limits"
  const parts = [
    c.limit === null ? undefined : `at most ${c.limit} at once`,
    c.perKey === null ? undefined : `${c.perKey} per key`,
    c.keyFrom === null ? undefined : `key from input.${c.keyFrom}`,
    c.pool === null ? undefined : `in pool ${c.pool}`
  ].filter((p) => p !== undefined)
  return `${parts.length === 0 ? "no limits" : parts.join(", ")} · ${c.inUse} in use now`
}

const listView = async (ctx) => {
  const title = el("h1", {}, "Triggers")
  const [res, workers] = await Promise.all([all(`/environments/${ctx.env.id}/triggers`), all(`/environments/${ctx.env.id}/workers`)])
  if (res.status !== 200) return ctx.show(title, alertBox(messageOf(res)))
  const labels = new Map(workers.items.map((w) => [w.id, w.label]))
  const rows = res.items.map((t) => el("tr", {},
    el("td", {}, el("a", { href: `#/triggers/${t.id}` }, t.name)),
    el("td", {}, t.workerId === null ? "any online worker" : labels.get(t.workerId) ?? `…${shortId(t.workerId)}`),
    el("td", { class: "wrap" }, t.webhookUrl ?? "none"),
    el("td", {}, `${t.timeoutSeconds} s`),
    el("td", {}, String(t.maxRetries)),
    el("td", {}, concurrencyText(t.concurrency)),
    el("td", { class: "mono" }, t.schedule === null ? "—" : scheduleText(t.schedule)),
    el("td", {}, nextRunEl(t)),
    el("td", {}, timeEl(t.createdAt))))
  ctx.show(title,
    ctx.can("admin") ? el("p", {}, el("a", { href: "#/triggers/new", class: "button" }, "New trigger")) : undefined,
    table("Triggers", ["Name", "Worker", "Webhook", "Time-out", "Retries", "Concurrency", "Schedule", "Next run", "Created"],
      rows.length > 0 ? rows : [emptyRow(9, "No triggers yet.")]))
}

const createView = async (ctx) => {
  const title = el("h1", {}, "New trigger")
  if (!ctx.can("admin")) return ctx.show(title, alertBox(`Creating triggers needs the admin role; yours is ${ctx.role}.`))
  const [workers, pools] = await Promise.all([all(`/environments/${ctx.env.id}/workers`), all(`/environments/${ctx.env.id}/concurrency-pools`)])
  const fields = triggerFields(workers.items, pools.items, undefined, false)
  const form = apiForm("Create trigger", fields, "Create trigger", async () => {
    const { body, failure } = payloadOf(fields)
    if (failure) return failure
    const res = await api("POST", `/environments/${ctx.env.id}/triggers`, body)
    if (res.status !== 201) return res
    ctx.say(`Trigger "${res.body.name}" created.`)
    ctx.go(`#/triggers/${res.body.id}`)
  })
  ctx.show(el("p", {}, el("a", { href: "#/triggers" }, "← Triggers")), title, form)
}

const runNowForm = (ctx, trigger) => {
  const input = control("Input (JSON, optional)", "textarea", { name: "input", rows: "3", class: "mono", placeholder: JSON.stringify(trigger.input) }, [],
    trigger.inputSchema === null
      ? "Empty: the trigger's own input. Checked before it is sent."
      : "Empty: the trigger's own input. It must match the trigger's input schema (above); checked before it is sent.")
  const result = el("p", { role: "status" })
  const form = apiForm("Run now", { input }, "Run now", async () => {
    result.replaceChildren()
    const parsed = parseJson(input.input.value)
    if (parsed.error !== undefined) return invalid("input", parsed.error)
    const mismatch = checkInput(trigger.inputSchema, "value" in parsed ? parsed.value : trigger.input)
    if (mismatch !== undefined) return invalid("input", mismatch)
    const res = await api("POST", `/triggers/${trigger.id}/run`, "value" in parsed ? { input: parsed.value } : {})
    if (res.status !== 201 && res.status !== 200) return res
    result.replaceChildren(`Run …${shortId(res.body.id)} is ${res.body.status}. `, el("a", { href: `#/runs/${res.body.id}` }, "Open the run"))
  }, [result])
  return el("section", { "aria-labelledby": "run-now" }, el("h2", { id: "run-now" }, "Run now"), form)
}

const mcpSection = (ctx, trigger) => {
  const place = el("div", {})
  const error = alertBox()
  const rotate = el("button", {
    type: "button",
    class: "secondary",
    onclick: async () => {
      error.textContent = ""
      const ok = await confirmDialog("Rotate the MCP token?", "A new token is made and shown once; the current token stops working at once.", "Rotate")
      if (!ok) return
      const res = await api("POST", `/triggers/${trigger.id}/rotate-mcp-token`)
      if (res.status !== 200) return void (error.textContent = messageOf(res))
      place.replaceChildren(secretBox("New MCP token", res.body.mcpToken,
        "Copy it now: it is not stored in readable form and cannot be shown again. Any previous token no longer works."))
      place.querySelector("input")?.focus()
    }
  }, "Rotate MCP token")
  return el("section", { "aria-labelledby": "mcp" }, el("h2", { id: "mcp" }, "MCP token"),
    el("p", {}, "Lets an agent run and watch this trigger only."), rotate, error, place)
}

const deleteSection = (ctx, trigger) => {
  const error = alertBox()
  const button = el("button", {
    type: "button",
    class: "danger",
    onclick: async () => {
      error.textContent = ""
      const ok = await confirmDialog(`Delete "${trigger.name}"?`, "Its runs stay readable; the trigger cannot be run again.", "Delete trigger")
      if (!ok) return
      const res = await api("DELETE", `/triggers/${trigger.id}`)
      if (res.status === 204) {
        ctx.say(`Trigger "${trigger.name}" deleted.`)
        return ctx.go("#/triggers")
      }
      error.textContent = res.status === 409
        ? `Not deleted: ${res.body?.error ?? "the trigger has active runs"}. Wait for them to end, then try again.`
        : messageOf(res)
    }
  }, "Delete trigger")
  return el("section", { "aria-labelledby": "delete" }, el("h2", { id: "delete" }, "Delete"), button, error)
}

/** "at once", or "10 s, × 3, at most 600 s, ± 20 %" (docs/delays-and-retries.md). */
const retryText = (r) => {
  if (r === undefined || r === null || r.initialDelaySeconds === 0) return "none: a retry is queued at once"
  return `${r.initialDelaySeconds} s, × ${r.factor}, at most ${r.maxDelaySeconds} s${r.jitter > 0 ? `, ± ${Math.round(r.jitter * 100)} %` : ""}`
}

const facts = (trigger, labels) =>
  el("dl", { class: "facts" },
    ...[
      ["Id", el("code", {}, trigger.id)],
      ["Description", trigger.description ?? "—"],
      ["Worker", trigger.workerId === null ? "any online worker" : labels.get(trigger.workerId) ?? trigger.workerId],
      ["Command", trigger.command === null ? "none (its runs fail: set one to run something)" : el("code", {}, trigger.command)],
      ["Time-out", `${trigger.timeoutSeconds} s`],
      ["Heartbeat time-out", `${trigger.heartbeatTimeoutSeconds} s`],
      ["Automatic retries", String(trigger.maxRetries)],
      ["Retry backoff", retryText(trigger.retry)],
      ["Time-to-live", trigger.ttlSeconds === null ? "none (a run waits until a worker claims it)" : `${trigger.ttlSeconds} s`],
      ["Concurrency", concurrencyText(trigger.concurrency)],
      ["Webhook", trigger.webhookUrl ?? "none"],
      ["Webhook secret", trigger.hasWebhookSecret ? "set" : "not set"],
      ["Schedule", scheduleText(trigger.schedule)],
      ["Next run", trigger.nextRunAt === null ? "— (no schedule)" : nextRunEl(trigger)],
      ["Updated", timeEl(trigger.updatedAt)]
    ].flatMap(([k, v]) => [el("dt", {}, k), el("dd", {}, v)]))

const triggerView = async (ctx, id) => {
  const [res, workers] = await Promise.all([api("GET", `/triggers/${id}`), all(`/environments/${ctx.env.id}/workers`)])
  const back = el("p", {}, el("a", { href: "#/triggers" }, "← Triggers"))
  if (res.status !== 200) {
    return ctx.show(back, el("h1", {}, "Trigger"), alertBox(res.status === 404 ? "This trigger does not exist (or was deleted)." : messageOf(res)))
  }
  const trigger = res.body
  const labels = new Map(workers.items.map((w) => [w.id, w.label]))
  const sections = [
    back,
    el("h1", {}, `Trigger · ${trigger.name}`),
    el("p", {}, el("a", { href: `#/runs?triggerId=${trigger.id}` }, "Runs of this trigger")),
    facts(trigger, labels),
    el("h2", {}, "Input"), el("pre", { class: "code" }, JSON.stringify(trigger.input, null, 2)),
    ...(trigger.inputSchema === null ? [] : [el("h2", {}, "Input schema"), el("pre", { class: "code" }, JSON.stringify(trigger.inputSchema, null, 2))])
  ]
  if (ctx.can("operator")) sections.push(runNowForm(ctx, trigger))
  if (ctx.can("admin")) {
    const pools = await all(`/environments/${ctx.env.id}/concurrency-pools`)
    const fields = triggerFields(workers.items, pools.items, trigger, true)
    const saved = el("p", { role: "status" })
    const form = apiForm("Edit trigger", fields, "Save changes", async () => {
      saved.textContent = ""
      const { body, failure } = payloadOf(fields)
      if (failure) return failure
      const patched = await api("PATCH", `/triggers/${trigger.id}`, body)
      if (patched.status !== 200) return patched
      ctx.say(`Trigger "${patched.body.name}" saved.`)
      await triggerView(ctx, id)
    }, [saved])
    sections.push(el("section", { "aria-labelledby": "edit" }, el("h2", { id: "edit" }, "Edit"), form), mcpSection(ctx, trigger), deleteSection(ctx, trigger))
  }
  ctx.show(...sections)
}

export const render = async (ctx, { segments }) => {
  if (segments[0] === "new") return createView(ctx)
  if (segments[0] !== undefined) return triggerView(ctx, segments[0])
  return listView(ctx)
}
