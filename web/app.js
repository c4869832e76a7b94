// The dashboard: plain DOM, no framework and no build step. Text always goes in
// through textContent (never innerHTML), so nothing a server stores can run here.

const main = document.getElementById("main")
const switcher = document.getElementById("switcher")
const account = document.getElementById("account")
const status = document.getElementById("status")

const remembered = {
  get: (key) => localStorage.getItem(`pts.${key}`),
  set: (key, value) => value === null ? localStorage.removeItem(`pts.${key}`) : localStorage.setItem(`pts.${key}`, value)
}

/** One call to /api/v1 with the session cookie; the browser adds the Origin the server checks on writes. */
const api = async (method, path, body) => {
  const response = await fetch(`/api/v1${path}`, {
    method,
    credentials: "same-origin",
    headers: body === undefined ? {} : { "content-type": "application/json" },
    body: body === undefined ? undefined : JSON.stringify(body)
  })
  const text = await response.text()
  return { status: response.status, body: text.length > 0 ? JSON.parse(text) : undefined }
}

const messageOf = (res) => {
  if (res.status === 403) return "You do not have permission to do this."
  return res.body?.error ?? `Request failed (${res.status}).`
}

const el = (tag, attrs = {}, ...children) => {
  const node = document.createElement(tag)
  for (const [key, value] of Object.entries(attrs)) {
    if (key.startsWith("on")) node.addEventListener(key.slice(2), value)
    else if (value !== undefined && value !== false) node.setAttribute(key, value === true ? "" : value)
  }
  node.append(...children.filter((child) => child !== undefined && child !== null))
  return node
}

const say = (text) => {
  status.textContent = text
}

const show = (...nodes) => {
  main.replaceChildren(...nodes)
  main.focus()
}

const field = (label, attrs) => {
  const input = el("input", attrs)
  return { input, node: el("label", {}, label, input) }
}

/** A form whose submit runs `action`; failures are shown inside the form as text. */
const form = (title, fields, submitLabel, action) => {
  const error = el("p", { class: "error", role: "alert" })
  const node = el("form", { "aria-label": title }, el("h2", {}, title), ...fields.map((f) => f.node), error, el("button", { type: "submit" }, submitLabel))
  node.addEventListener("submit", async (event) => {
    event.preventDefault()
    error.textContent = ""
    const failure = await action()
    if (failure) error.textContent = failure
  })
  return node
}

const signInView = () => {
  const email = field("Email", { type: "email", name: "email", autocomplete: "username", required: true })
  const password = field("Password", { type: "password", name: "password", autocomplete: "current-password", required: true, minlength: "8" })
  const newEmail = field("Email", { type: "email", name: "email", autocomplete: "username", required: true })
  const newPassword = field("Password (8 characters or more)", { type: "password", name: "password", autocomplete: "new-password", required: true, minlength: "8" })
  const enter = (path, e, p) => async () => {
    const res = await api("POST", path, { email: e.input.value, password: p.input.value })
    if (res.status === 200 || res.status === 201) return void start()
    return messageOf(res)
  }
  switcher.replaceChildren()
  account.replaceChildren()
  show(
    el("h1", {}, "Sign in"),
    form("Sign in", [email, password], "Sign in", enter("/auth/login", email, password)),
    form("Register", [newEmail, newPassword], "Create account", enter("/auth/register", newEmail, newPassword))
  )
}

const signOut = async () => {
  await api("POST", "/auth/logout")
  signInView()
}

const choose = (label, items, current, onChange) => {
  // An explicit for/id label: a wrapping label would add the chosen option to the control's name.
  const id = `choose-${label.toLowerCase()}`
  const select = el("select", { id, onchange: (event) => onChange(event.target.value) },
    ...items.map((item) => el("option", { value: item.id, selected: item.id === current }, item.name)))
  return el("span", { class: "choice" }, el("label", { for: id }, label), select)
}

const overviewView = async (env) => {
  const res = await api("GET", `/environments/${env.id}/dashboard/overview`)
  if (res.status !== 200) return show(el("h1", {}, "Overview"), el("p", { class: "error", role: "alert" }, messageOf(res)))
  const o = res.body
  const figure = (label, value) => el("li", {}, el("span", { class: "value" }, value), label)
  show(
    el("h1", {}, `Overview · ${env.name}`),
    el("ul", { class: "figures" },
      figure("Online workers", String(o.onlineWorkers)),
      figure("Runs today (UTC)", String(o.todaysRuns)),
      figure("Success rate today", o.successRatePct === null ? "no finished runs" : `${o.successRatePct}%`),
      figure("Token spend this month", `$${o.monthTokenSpendUsd}`))
  )
}

const createForm = (title, label, path, onCreated) => {
  const name = field(label, { name: "name", required: true, maxlength: "100" })
  return form(title, [name], "Create", async () => {
    const res = await api("POST", path, { name: name.input.value })
    if (res.status === 201) return void onCreated(res.body)
    return res.body?.details?.fieldErrors?.name?.join(" ") ?? messageOf(res)
  })
}

/** Workspace, then environment: each choice is remembered for the next visit. */
const workspaceView = async () => {
  const workspaces = (await api("GET", "/workspaces?limit=100")).body?.items ?? []
  const ws = workspaces.find((w) => w.id === remembered.get("workspace")) ?? workspaces[0]
  if (ws === undefined) {
    switcher.replaceChildren()
    return show(el("h1", {}, "Welcome"), createForm("Create a workspace", "Workspace name", "/workspaces", (created) => {
      remembered.set("workspace", created.id)
      void workspaceView()
    }))
  }
  remembered.set("workspace", ws.id)
  const environments = (await api("GET", `/workspaces/${ws.id}/environments?limit=100`)).body?.items ?? []
  const env = environments.find((e) => e.id === remembered.get("environment")) ?? environments[0]
  const pick = (key) => (id) => {
    remembered.set(key, id)
    if (key === "workspace") remembered.set("environment", null)
    void workspaceView()
  }
  switcher.replaceChildren(
    choose("Workspace", workspaces, ws.id, pick("workspace")),
    ...(env === undefined ? [] : [choose("Environment", environments, env.id, pick("environment"))])
  )
  if (env === undefined) {
    return show(el("h1", {}, ws.name), createForm("Create an environment", "Environment name", `/workspaces/${ws.id}/environments`, (created) => {
      remembered.set("environment", created.id)
      void workspaceView()
    }))
  }
  remembered.set("environment", env.id)
  await overviewView(env)
}

const start = async () => {
  say("")
  const me = await api("GET", "/auth/me")
  if (me.status !== 200) return signInView()
  account.replaceChildren(el("span", {}, me.body.email, " "), el("button", { type: "button", class: "secondary", onclick: signOut }, "Sign out"))
  await workspaceView()
}

start().catch(() => say("The service could not be reached. Reload to try again."))
