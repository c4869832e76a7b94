// The audit log (admin and above): newest first, filtered by action and target.
import { api, messageOf, query } from "./api.js"
// The action list is the server's own (generated from its contract when the dashboard is served).
import { auditActions } from "./contract.js"
import { alertBox, control, el, emptyRow, shortId, table, timeEl } from "./dom.js"

const actorOf = (record, emails) => {
  if (record.actorType === "user") return emails.get(record.actorId) ?? `user …${shortId(record.actorId)}`
  if (record.actorId === null) return record.actorType
  return `${record.actorType.replace("_", " ")} …${shortId(record.actorId)}`
}

export const render = async (ctx, { params }) => {
  const title = el("h1", {}, "Audit log")
  const filters = { action: params.get("action") ?? "", targetId: params.get("targetId") ?? "" }
  const cursor = params.get("cursor") ?? ""
  const [res, members] = await Promise.all([
    api("GET", `/environments/${ctx.env.id}/audit-log${query({ ...filters, cursor, limit: 50 })}`),
    api("GET", `/environments/${ctx.env.id}/members?limit=200`)
  ])
  const emails = new Map((members.body?.items ?? []).map((m) => [m.userId, m.email]))
  const action = control("Action", "select", { name: "action", value: filters.action }, [["", "Any action"], ...auditActions.map((a) => [a, a])])
  const target = control("Target id", "input", { name: "targetId", value: filters.targetId, placeholder: "a trigger, run, worker, member or key id", size: "40" })
  const form = el("form", { class: "filters", role: "search", "aria-label": "Filter the audit log" }, action.node, target.node,
    el("div", { class: "actions" }, el("button", { type: "submit" }, "Apply filters"), el("a", { href: "#/audit", class: "button secondary" }, "Clear")))
  form.addEventListener("submit", (event) => {
    event.preventDefault()
    ctx.go(`#/audit${query({ action: action.input.value, targetId: target.input.value.trim() })}`)
  })
  if (res.status !== 200) {
    const fieldErrors = res.body?.details?.fieldErrors ?? {}
    action.setError(fieldErrors.action?.join(" "))
    target.setError(fieldErrors.targetId?.join(" "))
    return ctx.show(title, form, alertBox(messageOf(res)))
  }
  const rows = res.body.items.map((r) => el("tr", {},
    el("td", {}, timeEl(r.createdAt)),
    el("td", {}, actorOf(r, emails)),
    el("td", {}, el("code", {}, r.action)),
    el("td", {}, r.targetType, r.targetId === null ? "" : " ", r.targetId === null ? undefined
      : el("a", { href: `#/audit${query({ targetId: r.targetId })}`, title: r.targetId, "aria-label": `Records about ${r.targetType} ${r.targetId}` }, `…${shortId(r.targetId)}`)),
    el("td", { class: "wrap" }, Object.keys(r.metadata).length === 0 ? "—" : el("code", {}, JSON.stringify(r.metadata)))))
  const pager = el("nav", { class: "pager", "aria-label": "Pages of the audit log" },
    cursor === "" ? undefined : el("a", { href: `#/audit${query(filters)}` }, "← Newest"),
    res.body.nextCursor === null ? undefined : el("a", { href: `#/audit${query({ ...filters, cursor: res.body.nextCursor })}` }, "Older →"))
  ctx.show(title, form,
    table("Audit records, newest first", ["When", "Actor", "Action", "Target", "Details"], rows.length > 0 ? rows : [emptyRow(5, "No records match.")]),
    pager)
}
