// Concurrency pools: each shared pool of the environment with its limit, the
// places its triggers' runs hold now and the triggers that join it; admins
// create, edit and delete pools (docs/flow-control.md). The places in use are
// read again every 5 s, in place, so an open edit form is left alone.
import { all, api, messageOf } from "./api.js"
import { alertBox, apiForm, confirmDialog, control, el, emptyRow, table, timeEl } from "./dom.js"

const refreshMs = 5000

/** A limit field's value as a number when it is one; otherwise as typed, so the server names the problem. */
const numberOf = (text) => text.trim() === "" ? undefined : Number.isFinite(Number(text)) ? Number(text) : text

/** "3 of 4 in use" (and "full" when no place is left), the words the page and its refresh share. */
const useText = (pool) => `${pool.inUse} of ${pool.limit} in use${pool.inUse >= pool.limit ? " (full)" : ""}`

// One refresh timer for the page, however often it is drawn again (after a save or a delete).
let timer

const poolsPath = (ctx) => `/environments/${ctx.env.id}/concurrency-pools`

/** Name and limit in one inline form (PATCH sends only what changed). */
const editCell = (ctx, pool, cell, again) => {
  const name = control("Name", "input", { name: "name", value: pool.name, maxlength: "100" })
  const limit = control("Limit", "input", { name: "limit", inputmode: "numeric", value: String(pool.limit) })
  const cancel = el("button", { type: "button", class: "secondary", onclick: again }, "Cancel")
  const form = apiForm(`Edit pool ${pool.name}`, { name, limit }, "Save", async () => {
    const body = {}
    if (name.input.value !== pool.name) body.name = name.input.value
    if (limit.input.value !== String(pool.limit)) body.limit = numberOf(limit.input.value)
    const res = await api("PATCH", `${poolsPath(ctx)}/${pool.id}`, body)
    if (res.status !== 200) return res
    ctx.say(`Pool "${res.body.name}" saved: limit ${res.body.limit}.`)
    again()
  }, [cancel])
  form.classList.add("inline")
  cell.replaceChildren(form)
  limit.input.focus()
  limit.input.select()
}

/** Edit and Delete for admins; a delete refused because triggers join the pool (409) is said as a sentence. */
const actionsCell = (ctx, pool, error, again) => {
  const cell = el("td", { class: "actions" })
  cell.append(
    el("button", {
      type: "button",
      class: "secondary small",
      "aria-label": `Edit ${pool.name}`,
      onclick: () => editCell(ctx, pool, cell, again)
    }, "Edit"),
    el("button", {
      type: "button",
      class: "danger small",
      "aria-label": `Delete ${pool.name}`,
      onclick: async () => {
        error.textContent = ""
        const ok = await confirmDialog(`Delete pool "${pool.name}"?`, "Only a pool no trigger joins can be deleted.", "Delete pool")
        if (!ok) return
        const res = await api("DELETE", `${poolsPath(ctx)}/${pool.id}`)
        if (res.status === 204) {
          ctx.say(`Pool "${pool.name}" deleted.`)
          return again()
        }
        error.textContent = res.status === 409
          ? `Not deleted: ${res.body?.error ?? "a trigger joins the pool"}.`
          : `${pool.name}: ${messageOf(res)}`
      }
    }, "Delete"))
  return cell
}

const createSection = (ctx, again) => {
  const name = control("Name", "input", { name: "name", maxlength: "100", placeholder: "gpu" }, [],
    "Letters, digits, '.', '_' or '-'. Triggers join the pool by this name (their concurrency's pool).")
  const limit = control("Limit", "input", { name: "limit", inputmode: "numeric", placeholder: "4" }, [],
    "At most this many runs of all its triggers hold a place (assigned, claimed or running) at once: 1 to 10000.")
  const form = apiForm("Create a pool", { name, limit }, "Create pool", async () => {
    const res = await api("POST", poolsPath(ctx), { name: name.input.value, limit: numberOf(limit.input.value) })
    if (res.status !== 201) return res
    ctx.say(`Pool "${res.body.name}" created.`)
    again()
  })
  return el("section", { "aria-labelledby": "create-pool" }, el("h2", { id: "create-pool" }, "Create a pool"), form)
}

export const render = async (ctx) => {
  const title = el("h1", {}, "Concurrency pools")
  const [res, triggers] = await Promise.all([all(poolsPath(ctx)), all(`/environments/${ctx.env.id}/triggers`)])
  if (res.status !== 200) return ctx.show(title, alertBox(messageOf(res)))
  const again = () => void render(ctx)
  const admin = ctx.can("admin")
  const error = alertBox()
  const members = (pool) => triggers.items.filter((t) => t.concurrency?.pool === pool.name)
  const rows = res.items.map((p) => el("tr", { "data-pool": p.id },
    el("td", {}, p.name),
    el("td", {}, String(p.limit)),
    el("td", { class: "in-use" }, useText(p)),
    el("td", {}, members(p).length === 0
      ? "none"
      : members(p).flatMap((t, i) => [i === 0 ? undefined : ", ", el("a", { href: `#/triggers/${t.id}` }, t.name)])),
    el("td", {}, timeEl(p.updatedAt)),
    admin ? actionsCell(ctx, p, error, again) : undefined))
  const headers = ["Name", "Limit", "In use", "Triggers", "Updated", ...(admin ? ["Actions"] : [])]
  ctx.show(title,
    el("p", {}, "A pool shares one concurrency limit among the triggers that join it; a run is placed only when its pool, ",
      "its trigger and its key all have room. A run holds a place while it is assigned, claimed or running."),
    error,
    table("Concurrency pools", headers, rows.length > 0 ? rows : [emptyRow(headers.length, "No pools yet.")], { class: "pools" }),
    admin ? createSection(ctx, again) : el("p", {}, `Pools are created, edited and deleted by admins (your role is ${ctx.role}).`))

  // The places in use move with every run: read them again, in place.
  const refresh = async () => {
    if (!ctx.live()) return
    const now = await all(poolsPath(ctx))
    if (!ctx.live() || now.status !== 200) return
    for (const p of now.items) {
      const cell = document.querySelector(`tr[data-pool="${p.id}"] .in-use`)
      if (cell !== null && cell.textContent !== useText(p)) cell.textContent = useText(p)
    }
  }
  clearInterval(timer)
  timer = setInterval(() => void refresh(), refreshMs)
  ctx.onLeave(() => clearInterval(timer))
}
