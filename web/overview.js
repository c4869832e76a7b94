// Overview: the environment's four figures.
import { api, messageOf } from "./api.js"
import { alertBox, el } from "./dom.js"

const figure = (label, value) => el("li", {}, el("span", { class: "value" }, value), label)

export const render = async (ctx) => {
  const res = await api("GET", `/environments/${ctx.env.id}/dashboard/overview`)
  const title = el("h1", {}, `Overview · ${ctx.env.name}`)
  if (res.status !== 200) return ctx.show(title, alertBox(messageOf(res)))
  const o = res.body
  ctx.show(
    title,
    el("ul", { class: "figures" },
      figure("Online workers", String(o.onlineWorkers)),
      figure("Runs today (UTC)", String(o.todaysRuns)),
      figure("Success rate today", o.successRatePct === null ? "no finished runs" : `${o.successRatePct}%`),
      figure("Token spend this month", `$${o.monthTokenSpendUsd}`)),
    el("p", {}, el("a", { href: "#/runs" }, "See the runs"), " · ", el("a", { href: "#/triggers" }, "Triggers"), " · ",
      el("a", { href: "#/workers" }, "Workers"))
  )
}
