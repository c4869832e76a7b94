// The dashboard's shell: session, workspace and environment switcher, the
// navigation and a hash router. Each page is its own module with
// `render(ctx, route)`; pages never import each other or this file.
import { all, api, messageOf, whenSignedOut } from "./api.js"
import { alertBox, el } from "./dom.js"
import * as overview from "./overview.js"
import * as runs from "./runs.js"
import * as run from "./run.js"
import * as triggers from "./triggers.js"
import * as workers from "./workers.js"
import * as pools from "./pools.js"
import * as members from "./members.js"
import * as keys from "./keys.js"
import * as audit from "./audit.js"
import { signInView } from "./signin.js"

const main = document.getElementById("main")
const switcher = document.getElementById("switcher")
const account = document.getElementById("account")
const nav = document.getElementById("nav")
const status = document.getElementById("status")

const remembered = {
  get: (key) => localStorage.getItem(`pts.${key}`),
  set: (key, value) => value === null ? localStorage.removeItem(`pts.${key}`) : localStorage.setItem(`pts.${key}`, value)
}

const roles = ["viewer", "operator", "admin", "owner"]

/** The pages in the navigation; `role` is the least role that may open one (else it is not offered). */
const pages = [
  { path: "", label: "Overview", module: overview },
  { path: "runs", label: "Runs", module: runs },
  { path: "triggers", label: "Triggers", module: triggers },
  { path: "workers", label: "Workers", module: workers },
  { path: "pools", label: "Pools", module: pools },
  { path: "members", label: "Members", module: members },
  { path: "keys", label: "API keys", module: keys },
  { path: "audit", label: "Audit log", module: audit, role: "admin" }
]

let session // {me, workspaces, ws, environments, env, role}
let generation = 0
let leaving = []

const say = (text) => {
  status.textContent = text
}

const parseRoute = () => {
  const hash = location.hash.replace(/^#\/?/, "")
  const [pathPart, search = ""] = hash.split("?")
  const segments = pathPart.split("/").filter((s) => s.length > 0).map(decodeURIComponent)
  return { segments, params: new URLSearchParams(search) }
}

/** What every page gets: the session, a role check and a `show` that ignores answers arriving after the person moved on. */
const contextFor = (gen) => ({
  ...session,
  can: (role) => roles.indexOf(session.role) >= roles.indexOf(role),
  live: () => gen === generation,
  show: (...nodes) => {
    if (gen !== generation) return
    main.replaceChildren(...nodes)
    const heading = main.querySelector("h1")
    document.title = `${heading?.textContent ?? "Dashboard"} · Pipeline Trigger Service`
  },
  onLeave: (fn) => {
    if (gen === generation) leaving.push(fn)
    else fn()
  },
  go: (hash) => {
    location.hash = hash
  },
  say
})

const renderNav = (current) => {
  const links = pages
    .filter((p) => p.role === undefined || roles.indexOf(session.role) >= roles.indexOf(p.role))
    .map((p) => el("li", {}, el("a", { href: `#/${p.path}`, "aria-current": p.path === current ? "page" : undefined }, p.label)))
  nav.replaceChildren(el("ul", {}, links))
}

const route = async () => {
  if (session?.env === undefined) return
  generation += 1
  const gen = generation
  for (const fn of leaving.splice(0)) fn()
  say("")
  const { segments, params } = parseRoute()
  const [first = "", ...rest] = segments
  const page = pages.find((p) => p.path === first)
  renderNav(page?.path ?? first)
  const ctx = contextFor(gen)
  main.focus({ preventScroll: true })
  if (first === "runs" && rest.length > 0) return run.render(ctx, { id: rest[0], params })
  if (page === undefined) return ctx.show(el("h1", {}, "Not found"), el("p", {}, "There is no such page. ", el("a", { href: "#/" }, "Go to the overview.")))
  if (page.role !== undefined && !ctx.can(page.role)) {
    return ctx.show(el("h1", {}, page.label), alertBox(`Your role here is ${session.role}; the ${page.label.toLowerCase()} needs ${page.role} or higher.`))
  }
  await page.module.render(ctx, { segments: rest, params })
}

const signOut = async () => {
  await api("POST", "/auth/logout")
  showSignIn()
}

const showSignIn = () => {
  session = undefined
  generation += 1
  for (const fn of leaving.splice(0)) fn()
  switcher.replaceChildren()
  account.replaceChildren()
  nav.replaceChildren()
  signInView(main, () => void start())
}

const choose = (label, items, current, onChange) => {
  // An explicit for/id label: a wrapping label would add the chosen option to the control's name.
  const id = `choose-${label.toLowerCase()}`
  const select = el("select", { id, onchange: (event) => onChange(event.target.value) },
    items.map((item) => el("option", { value: item.id, selected: item.id === current }, item.name)))
  return el("span", { class: "choice" }, el("label", { for: id }, label), select)
}

const createForm = (title, label, path, onCreated) => {
  const id = "create-name"
  const input = el("input", { id, name: "name", required: true, maxlength: "200", "aria-describedby": "create-error" })
  const error = el("p", { class: "error", role: "alert", id: "create-error" })
  const form = el("form", { "aria-label": title },
    el("h2", {}, title), el("div", { class: "field" }, el("label", { for: id }, label), input), error,
    el("div", { class: "actions" }, el("button", { type: "submit" }, "Create")))
  form.addEventListener("submit", async (event) => {
    event.preventDefault()
    const res = await api("POST", path, { name: input.value })
    if (res.status === 201) return onCreated(res.body)
    error.textContent = res.body?.details?.fieldErrors?.name?.join(" ") ?? messageOf(res)
  })
  return form
}

/** The caller's role in an environment, from its member list (every member may read it). */
const roleIn = async (envId, userId) => {
  const res = await all(`/environments/${envId}/members`)
  return res.items.find((m) => m.userId === userId)?.role ?? "viewer"
}

/** Workspace, then environment: each choice is remembered for the next visit. */
const workspaceView = async () => {
  const me = session.me
  const workspaces = (await all("/workspaces")).items
  const ws = workspaces.find((w) => w.id === remembered.get("workspace")) ?? workspaces[0]
  nav.replaceChildren()
  if (ws === undefined) {
    switcher.replaceChildren()
    return main.replaceChildren(el("h1", {}, "Welcome"), createForm("Create a workspace", "Workspace name", "/workspaces", (created) => {
      remembered.set("workspace", created.id)
      void workspaceView()
    }))
  }
  remembered.set("workspace", ws.id)
  const environments = (await all(`/workspaces/${ws.id}/environments`)).items
  const env = environments.find((e) => e.id === remembered.get("environment")) ?? environments[0]
  const pick = (key) => (id) => {
    remembered.set(key, id)
    if (key === "workspace") remembered.set("environment", null)
    void workspaceView()
  }
  switcher.replaceChildren(
    choose("Workspace", workspaces, ws.id, pick("workspace")),
    env === undefined ? undefined : choose("Environment", environments, env.id, pick("environment"))
  )
  if (env === undefined) {
    session = { me, workspaces, ws, environments, env: undefined, role: "viewer" }
    const owner = ws.ownerId === me.id
    return main.replaceChildren(el("h1", {}, ws.name), owner
      ? createForm("Create an environment", "Environment name", `/workspaces/${ws.id}/environments`, (created) => {
        remembered.set("environment", created.id)
        void workspaceView()
      })
      : el("p", {}, "You are not a member of any environment in this workspace yet. Ask its owner to add you."))
  }
  remembered.set("environment", env.id)
  session = { me, workspaces, ws, environments, env, role: await roleIn(env.id, me.id) }
  account.querySelector(".role")?.replaceChildren(`Role: ${session.role}`)
  await route()
}

const start = async () => {
  say("")
  const me = await api("GET", "/auth/me")
  if (me.status !== 200) return showSignIn()
  session = { me: me.body }
  account.replaceChildren(
    el("span", {}, me.body.email), el("span", { class: "role" }),
    el("button", { type: "button", class: "secondary", onclick: signOut }, "Sign out"))
  await workspaceView()
}

whenSignedOut(() => {
  if (session !== undefined) showSignIn()
})
window.addEventListener("hashchange", () => void route())
start().catch(() => say("The service could not be reached. Reload to try again."))
