// DOM helpers. Text always goes in through text nodes (never innerHTML), so
// nothing a server stores can run here.

let ids = 0
/** A fresh id for label/for and aria-describedby pairs. */
export const uid = (prefix) => `${prefix}-${++ids}`

/** `el("a", {href}, "text", child)`; `on*` attributes become listeners, `false`/undefined are left out. */
export const el = (tag, attrs = {}, ...children) => {
  const node = document.createElement(tag)
  for (const [key, value] of Object.entries(attrs)) {
    if (key.startsWith("on") && typeof value === "function") node.addEventListener(key.slice(2), value)
    else if (key === "value" && "value" in node) node.value = value ?? ""
    else if (value !== undefined && value !== null && value !== false) node.setAttribute(key, value === true ? "" : String(value))
  }
  node.append(...children.flat().filter((child) => child !== undefined && child !== null && child !== false))
  return node
}

/** An error message block: announced, and hidden while empty. */
export const alertBox = (text = "") => el("p", { class: "error", role: "alert" }, text)

/** A status as text with a colour: the word is always there, the colour only helps. */
export const statusBadge = (status) => el("span", { class: `badge badge-${status}` }, status.replace("_", " "))

/** Why a queued run waits, in words (its `waitReason`, with the key or pool that holds it); undefined when it does not say. */
export const waitText = (run) => {
  if (run.status !== "queued" || !run.waitReason) return undefined
  const words = run.waitReason.replaceAll("_", " ")
  if (run.waitReason === "key_limit" && run.concurrencyKey !== null) return `${words} (key ${run.concurrencyKey})`
  if (run.waitReason === "pool_limit" && run.waitPool !== null) return `${words} (pool ${run.waitPool})`
  return words
}

/** A queued run's wait reason beside its status badge. */
export const waitNote = (run) => {
  const text = waitText(run)
  return text === undefined ? undefined : el("span", { class: "wait-reason", title: "Why this run waits" }, ` waiting: ${text}`)
}

export const shortId = (id) => id === null || id === undefined ? "" : id.slice(-8)

const pad = (n) => String(n).padStart(2, "0")
/** Local time, to the second: `2026-11-25 14:05:09`. */
export const formatTime = (iso) => {
  if (iso === null || iso === undefined) return "—"
  const d = new Date(iso)
  return `${d.getFullYear()}-${pad(d.getMonth() + 1)}-${pad(d.getDate())} ${pad(d.getHours())}:${pad(d.getMinutes())}:${pad(d.getSeconds())}`
}

/** A <time> element: local time as text, the exact instant in `datetime` and the tooltip. */
export const timeEl = (iso) => iso === null || iso === undefined ? "—" : el("time", { datetime: iso, title: iso }, formatTime(iso))

/** `42 s ago`, `3 min ago`, `2 h ago`, `4 d ago`. */
export const ago = (iso, now = Date.now()) => {
  const s = Math.max(0, Math.round((now - new Date(iso).getTime()) / 1000))
  if (s < 60) return `${s} s ago`
  if (s < 3600) return `${Math.floor(s / 60)} min ago`
  if (s < 86400) return `${Math.floor(s / 3600)} h ago`
  return `${Math.floor(s / 86400)} d ago`
}

export const formatDuration = (ms) => {
  if (ms === null || ms === undefined) return "—"
  if (ms < 1000) return `${ms} ms`
  if (ms < 60_000) return `${(ms / 1000).toFixed(1)} s`
  const m = Math.floor(ms / 60_000)
  return `${m} min ${Math.round((ms % 60_000) / 1000)} s`
}

export const formatCost = (usd) => usd === null || usd === undefined ? "—" : `$${usd}`

/** Pretty JSON in a <pre>; `—` for null. */
export const jsonBlock = (value, label) =>
  el("pre", { class: "code", tabindex: "0", "aria-label": label }, value === undefined ? "—" : JSON.stringify(value, null, 2))

/**
 * A labelled control with its own error line beside it. `kind` is an element
 * name ("input", "select", "textarea"); options are [value, text] pairs.
 */
export const control = (label, kind, attrs = {}, options = [], hint) => {
  const id = uid("f")
  const errorId = `${id}-error`
  const hintId = hint ? `${id}-hint` : undefined
  const input = kind === "select"
    ? el("select", { id, ...attrs }, options.map(([value, text]) => el("option", { value, selected: String(attrs.value ?? "") === String(value) }, text)))
    : el(kind, { id, ...attrs })
  if (kind === "textarea" && attrs.value !== undefined) input.value = attrs.value
  const error = el("span", { class: "field-error", id: errorId })
  input.setAttribute("aria-describedby", [hintId, errorId].filter(Boolean).join(" "))
  const node = el("div", { class: "field" },
    el("label", { for: id }, label),
    input,
    hint ? el("span", { class: "hint", id: hintId }, hint) : undefined,
    error)
  const setError = (text) => {
    error.textContent = text ?? ""
    if (text) input.setAttribute("aria-invalid", "true")
    else input.removeAttribute("aria-invalid")
  }
  return { input, node, setError }
}

/**
 * A form: `fields` maps API field names to controls; `action` returns nothing
 * on success, or the server's answer, whose `details.fieldErrors` are shown
 * beside their fields and anything else above the button, as text.
 */
export const apiForm = (title, fields, submitLabel, action, extra = []) => {
  const error = alertBox()
  const button = el("button", { type: "submit" }, submitLabel)
  const node = el("form", { "aria-label": title, novalidate: true },
    Object.values(fields).map((f) => f.node), ...extra, error, el("div", { class: "actions" }, button))
  node.addEventListener("submit", async (event) => {
    event.preventDefault()
    error.textContent = ""
    for (const f of Object.values(fields)) f.setError("")
    button.disabled = true
    try {
      const failure = await action()
      if (failure) showFailure(failure, fields, error)
    } finally {
      button.disabled = false
    }
  })
  return node
}

/** Field errors beside their fields; the rest (and fields the form does not show) in the form's alert. */
export const showFailure = (failure, fields, error) => {
  if (typeof failure === "string") {
    error.textContent = failure
    return
  }
  const fieldErrors = failure.body?.details?.fieldErrors ?? {}
  const rest = []
  let first
  for (const [name, messages] of Object.entries(fieldErrors)) {
    const f = fields[name]
    // Each message names its field, so one the form does not show still reads on its own.
    if (f === undefined) rest.push(...messages)
    else {
      // A field of several controls places each message itself.
      if (f.setErrors !== undefined) f.setErrors(messages)
      else f.setError(messages.join(" "))
      first ??= f
    }
  }
  const formErrors = failure.body?.details?.formErrors ?? []
  if (failure.status === 400 && Object.keys(fieldErrors).length > 0) {
    error.textContent = ["Please correct the marked fields.", ...rest, ...formErrors].join(" ")
  } else {
    error.textContent = failure.status === 403
      ? "You do not have permission to do this in this environment."
      : [failure.body?.error ?? `Request failed (${failure.status}).`, ...formErrors].join(" ")
  }
  first?.input.focus()
}

/** A secret shown once: the value, a copy button and the warning that it will not be shown again. */
export const secretBox = (label, value, warning) => {
  const output = el("input", { type: "text", readonly: true, value, "aria-label": label, class: "secret", size: "60" })
  const copied = el("span", { role: "status", class: "hint" })
  const copy = el("button", {
    type: "button",
    class: "secondary",
    onclick: async () => {
      try {
        await navigator.clipboard.writeText(value)
        copied.textContent = "Copied."
      } catch {
        output.select()
        copied.textContent = "Selected: press Ctrl+C (⌘C) to copy."
      }
    }
  }, "Copy")
  return el("div", { class: "secret-box" },
    el("p", { class: "warning" }, el("strong", {}, "Shown once. "), warning),
    el("div", { class: "row" }, output, copy), copied)
}

/** A modal confirmation (native <dialog>: focus is trapped and Escape cancels). Resolves true when confirmed. */
export const confirmDialog = (title, text, confirmLabel, dismissLabel = "Cancel") =>
  new Promise((resolve) => {
    const dialog = el("dialog", { "aria-label": title },
      el("h2", {}, title), el("p", {}, text),
      el("form", { method: "dialog", class: "actions" },
        el("button", { value: "cancel", class: "secondary", autofocus: true }, dismissLabel),
        el("button", { value: "confirm", class: "danger" }, confirmLabel)))
    dialog.addEventListener("close", () => {
      dialog.remove()
      resolve(dialog.returnValue === "confirm")
    })
    document.body.append(dialog)
    dialog.showModal()
  })

/**
 * Collects updates and applies them together once per animation frame, so a
 * burst of events (100 a second) costs one layout, not one per event. With
 * `keyOf`, a later item replaces a pending one of the same key (only the
 * latest state of each thing is applied).
 */
export const frameBatcher = (apply, keyOf = undefined) => {
  let pending = new Map()
  let n = 0
  let scheduled = false
  return (item) => {
    pending.set(keyOf === undefined ? n++ : keyOf(item), item)
    if (scheduled) return
    scheduled = true
    requestAnimationFrame(() => {
      const batch = [...pending.values()]
      pending = new Map()
      scheduled = false
      apply(batch)
    })
  }
}

/** A table with a caption and header row; `rows` are <tr> elements. */
export const table = (caption, headers, rows, attrs = {}) =>
  el("table", attrs,
    el("caption", { class: "visually-hidden" }, caption),
    el("thead", {}, el("tr", {}, headers.map((h) => el("th", { scope: "col" }, h)))),
    el("tbody", {}, rows))

export const emptyRow = (columns, text) => el("tr", {}, el("td", { colspan: String(columns), class: "empty" }, text))
