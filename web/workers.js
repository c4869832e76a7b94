// Workers: online and offline with last-seen times, relabelling, and how to
// start one (the install, and the command with a fresh one-time registration token).
import { all, api, messageOf } from "./api.js"
import { ago, alertBox, apiForm, confirmDialog, control, el, emptyRow, secretBox, statusBadge, table, timeEl } from "./dom.js"
import { installCommand, startCommand } from "./workerstart.js"

const startSection = (ctx) => {
  const place = el("div", {})
  const error = alertBox()
  const section = el("section", { "aria-labelledby": "start-worker" }, el("h2", { id: "start-worker" }, "Start a worker"),
    el("p", {}, "A worker is a process on any machine that can reach this service. The ",
      el("code", {}, "pipeline-worker"), " agent runs the ", el("code", {}, "command"), " of each run's trigger",
      " and reports the result; it registers once with a one-time registration token and keeps its own token afterwards."))
  if (!ctx.can("admin")) {
    section.append(el("p", {}, `Registration tokens are made by an admin of this environment (your role is ${ctx.role}).`))
    return section
  }
  const button = el("button", {
    type: "button",
    onclick: async () => {
      error.textContent = ""
      const res = await api("POST", `/environments/${ctx.env.id}/api-keys`, { name: `worker registration ${new Date().toISOString().slice(0, 16)}`, prefix: "wrk" })
      if (res.status !== 201) return void (error.textContent = messageOf(res))
      place.replaceChildren(
        el("p", {}, "On the machine where the worker should run (Node.js 20 or later), install the agent once. It is a package of its own, ",
          el("code", {}, "pipeline-trigger-worker"), ", a few MB without dependencies: make it in a checkout of this service with ",
          el("code", {}, "cd packages/worker && npm pack"), ", copy the file over, then:"),
        el("pre", { class: "code", "aria-label": "Worker install command" }, installCommand),
        el("p", {}, "Then start it. The registration token goes in the environment, not on the command line, where every user of the machine could read it with ",
          el("code", {}, "ps"), ". Inside a checkout of this service, ", el("code", {}, "npx pipeline-worker"), " works without installing."),
        secretBox("Worker start command", startCommand(location.origin, res.body.token), "The registration token works once; it is not stored in readable form and cannot be shown again."))
      place.querySelector("input")?.focus()
    }
  }, "Create a registration token")
  section.append(button, error, place)
  return section
}

const labelCell = (ctx, worker, onSaved) => {
  const cell = el("td", {}, worker.label)
  // A revoked worker cannot be changed (the server answers 404): nothing to rename.
  if (!ctx.can("admin") || worker.status === "revoked") return cell
  const edit = el("button", {
    type: "button",
    class: "secondary small",
    "aria-label": `Rename ${worker.label}`,
    onclick: () => {
      const label = control("Label", "input", { name: "label", value: worker.label, maxlength: "200" })
      const cancel = el("button", { type: "button", class: "secondary", onclick: () => onSaved() }, "Cancel")
      const form = apiForm(`Rename worker ${worker.label}`, { label }, "Save", async () => {
        const res = await api("PATCH", `/workspaces/${ctx.ws.id}/workers/${worker.id}`, { label: label.input.value })
        if (res.status !== 200) return res
        ctx.say(`Worker renamed to "${res.body.label}".`)
        onSaved()
      }, [cancel])
      form.classList.add("inline")
      cell.replaceChildren(form)
      label.input.focus()
      label.input.select()
    }
  }, "Rename")
  cell.append(" ", edit)
  return cell
}

/** Drain / undrain and revoke (admin and above); a revoked worker has nothing left to do. */
const actionsCell = (ctx, worker, error, onDone) => {
  if (!ctx.can("admin") || worker.status === "revoked") return el("td", {})
  const draining = worker.status === "draining"
  const call = async (method, body, done) => {
    error.textContent = ""
    const res = await api(method, `/workspaces/${ctx.ws.id}/workers/${worker.id}`, body)
    if (res.status !== 200 && res.status !== 204) return void (error.textContent = `${worker.label}: ${messageOf(res)}`)
    ctx.say(done)
    onDone()
  }
  return el("td", { class: "actions" },
    el("button", {
      type: "button",
      class: "secondary small",
      "aria-label": `${draining ? "Undrain" : "Drain"} ${worker.label}`,
      onclick: () => call("PATCH", { draining: !draining }, draining ? `${worker.label} takes new runs again.` : `${worker.label} is draining: it keeps its runs and gets no new ones.`)
    }, draining ? "Undrain" : "Drain"),
    el("button", {
      type: "button",
      class: "danger small",
      "aria-label": `Revoke ${worker.label}`,
      onclick: async () => {
        const ok = await confirmDialog(`Revoke ${worker.label}?`, "Its token stops working at once; its assigned runs go back to the queue and its running runs end timed out.", "Revoke")
        if (ok) await call("DELETE", undefined, `${worker.label} revoked.`)
      }
    }, "Revoke"))
}

export const render = async (ctx) => {
  const title = el("h1", {}, "Workers")
  const res = await all(`/environments/${ctx.env.id}/workers`)
  if (res.status !== 200) return ctx.show(title, alertBox(messageOf(res)))
  const again = () => void render(ctx)
  const error = alertBox()
  const now = Date.now()
  const rows = res.items.map((w) => el("tr", { "data-worker": w.id },
    labelCell(ctx, w, again),
    el("td", {}, statusBadge(w.status)),
    el("td", {}, ago(w.lastSeenAt, now), " (", timeEl(w.lastSeenAt), ")"),
    el("td", {}, timeEl(w.createdAt)),
    el("td", {}, el("a", { href: `#/runs?workerId=${w.id}` }, "Runs")),
    actionsCell(ctx, w, error, again)))
  const count = (status) => res.items.filter((w) => w.status === status).length
  ctx.show(title,
    el("p", {}, `${count("online")} online, ${count("offline")} offline, ${count("draining")} draining, ${count("revoked")} revoked.`),
    error,
    table("Workers", ["Label", "Status", "Last seen", "Registered", "", "Actions"], rows.length > 0 ? rows : [emptyRow(6, "No workers yet.")]),
    startSection(ctx))
}
