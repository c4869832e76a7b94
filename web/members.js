// Members: add by email, change role, remove. Only what the caller's role may
// do is offered; the server's 409s (last owner, already a member) are shown as they are.
import { all, api, messageOf } from "./api.js"
import { alertBox, apiForm, confirmDialog, control, el, table, timeEl } from "./dom.js"

const allRoles = ["viewer", "operator", "admin", "owner"]

export const render = async (ctx) => {
  const title = el("h1", {}, "Members")
  const res = await all(`/environments/${ctx.env.id}/members`)
  if (res.status !== 200) return ctx.show(title, alertBox(messageOf(res)))
  const error = alertBox()
  const again = () => void render(ctx)
  // Admins manage everyone below owner; only owners touch the owner role.
  const grantable = ctx.can("owner") ? allRoles : ctx.can("admin") ? allRoles.slice(0, 3) : []
  const mayManage = (m) => grantable.includes(m.role)

  const rows = res.items.map((m) => {
    const you = m.userId === ctx.me.id ? " (you)" : ""
    let roleCell = el("td", {}, m.role)
    let removeCell = el("td", {})
    if (mayManage(m)) {
      const select = el("select", {
        "aria-label": `Role of ${m.email}`,
        onchange: async (event) => {
          error.textContent = ""
          const changed = await api("PATCH", `/environments/${ctx.env.id}/members/${m.userId}`, { role: event.target.value })
          if (changed.status !== 200) {
            event.target.value = m.role
            error.textContent = `Role of ${m.email} not changed: ${messageOf(changed)}`
            return
          }
          ctx.say(`${m.email} is now ${changed.body.role}.`)
          if (m.userId === ctx.me.id) return location.reload()
          again()
        }
      }, grantable.map((r) => el("option", { value: r, selected: r === m.role }, r)))
      roleCell = el("td", {}, select)
      removeCell = el("td", {}, el("button", {
        type: "button",
        class: "danger small",
        "aria-label": `Remove ${m.email}`,
        onclick: async () => {
          error.textContent = ""
          if (!await confirmDialog(`Remove ${m.email}?`, "They lose access to this environment at once.", "Remove")) return
          const removed = await api("DELETE", `/environments/${ctx.env.id}/members/${m.userId}`)
          if (removed.status !== 204) return void (error.textContent = `${m.email} not removed: ${messageOf(removed)}`)
          ctx.say(`${m.email} removed.`)
          if (m.userId === ctx.me.id) return location.reload()
          again()
        }
      }, "Remove"))
    }
    return el("tr", {}, el("td", {}, m.email + you), roleCell, el("td", {}, timeEl(m.createdAt)), removeCell)
  })

  const sections = [title, error, table("Members", ["Email", "Role", "Member since", ""], rows)]
  if (grantable.length > 0) {
    const email = control("Email", "input", { type: "email", name: "email", autocomplete: "off" })
    const role = control("Role", "select", { name: "role", value: "viewer" }, grantable.map((r) => [r, r]))
    const form = apiForm("Add a member", { email, role }, "Add member", async () => {
      const found = await api("GET", `/users/lookup?email=${encodeURIComponent(email.input.value.trim())}`)
      if (found.status === 404) return { status: 400, body: { error: "Not added", details: { fieldErrors: { email: ["No account has this email. They must register first."] }, formErrors: [] } } }
      if (found.status !== 200) return found
      const added = await api("POST", `/environments/${ctx.env.id}/members`, { userId: found.body.id, role: role.input.value })
      if (added.status !== 201) return added
      ctx.say(`${added.body.email} added as ${added.body.role}.`)
      again()
    })
    sections.push(el("section", { "aria-labelledby": "add-member" }, el("h2", { id: "add-member" }, "Add a member"), form))
  }
  ctx.show(...sections)
}
