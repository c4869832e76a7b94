// API keys and worker registration tokens: list, create (the token is shown
// once), delete.
import { all, api, messageOf } from "./api.js"
import { alertBox, apiForm, confirmDialog, control, el, emptyRow, secretBox, table, timeEl } from "./dom.js"

const kindOf = (key) => key.prefix === "pwk" ? "API key" : "Worker registration token"

export const render = async (ctx, _route, created) => {
  const title = el("h1", {}, "API keys")
  const res = await all(`/environments/${ctx.env.id}/api-keys`)
  if (res.status !== 200) return ctx.show(title, alertBox(messageOf(res)))
  const error = alertBox()
  const admin = ctx.can("admin")
  const rows = res.items.map((k) => el("tr", {},
    el("td", {}, k.name),
    el("td", {}, kindOf(k)),
    el("td", {}, k.role ?? "—"),
    el("td", {}, el("code", {}, `${k.tokenStart}…`)),
    el("td", {}, timeEl(k.createdAt)),
    el("td", {}, k.prefix === "wrk" ? (k.consumedAt === null ? "not used yet" : ["used ", timeEl(k.consumedAt)]) : k.lastUsedAt === null ? "never" : timeEl(k.lastUsedAt)),
    admin
      ? el("td", {}, el("button", {
        type: "button",
        class: "danger small",
        "aria-label": `Delete ${k.name}`,
        onclick: async () => {
          error.textContent = ""
          if (!await confirmDialog(`Delete "${k.name}"?`, "Anything using it is refused from now on.", "Delete")) return
          const removed = await api("DELETE", `/environments/${ctx.env.id}/api-keys/${k.id}`)
          if (removed.status !== 204) return void (error.textContent = `Not deleted: ${messageOf(removed)}`)
          ctx.say(`"${k.name}" deleted.`)
          void render(ctx, _route)
        }
      }, "Delete"))
      : undefined))
  const headers = ["Name", "Kind", "Role", "Token starts", "Created", "Last used", ...(admin ? [""] : [])]
  const sections = [title]
  if (created !== undefined) {
    sections.push(secretBox(`Token of "${created.name}"`, created.token,
      "Copy it now: the service keeps only its hash and cannot show it again."))
  }
  sections.push(error, table("API keys and registration tokens", headers, rows.length > 0 ? rows : [emptyRow(headers.length, "No keys yet.")]))
  if (admin) {
    const name = control("Name", "input", { name: "name", maxlength: "200", placeholder: "deploy script" })
    const prefix = control("Kind", "select", { name: "prefix", value: "pwk" }, [["pwk", "API key (pwk_)"], ["wrk", "Worker registration token (wrk_, single use)"]])
    const role = control("Role", "select", { name: "role", value: "operator" }, [["viewer", "viewer"], ["operator", "operator"], ["admin", "admin"]], "API keys only; a registration token has no role.")
    const form = apiForm("Create a key", { name, prefix, role }, "Create", async () => {
      const isKey = prefix.input.value === "pwk"
      const made = await api("POST", `/environments/${ctx.env.id}/api-keys`, { name: name.input.value, prefix: prefix.input.value, ...(isKey ? { role: role.input.value } : {}) })
      if (made.status !== 201) return made
      await render(ctx, _route, made.body)
      document.querySelector(".secret-box input")?.focus()
    })
    sections.push(el("section", { "aria-labelledby": "create-key" }, el("h2", { id: "create-key" }, "Create a key"), form))
  } else {
    sections.push(el("p", {}, `Keys are created and deleted by admins (your role is ${ctx.role}).`))
  }
  ctx.show(...sections)
}
