// Sign in and register: the two forms a signed-out visitor sees.
import { api } from "./api.js"
import { alertBox, control, el, showFailure } from "./dom.js"

const accountForm = (title, submitLabel, path, passwordLabel, autocomplete, onDone) => {
  const email = control("Email", "input", { type: "email", name: "email", autocomplete: "username", required: true })
  const password = control(passwordLabel, "input", { type: "password", name: "password", autocomplete, required: true })
  const error = alertBox()
  const form = el("form", { "aria-label": title }, el("h2", {}, title), email.node, password.node, error,
    el("div", { class: "actions" }, el("button", { type: "submit" }, submitLabel)))
  form.addEventListener("submit", async (event) => {
    event.preventDefault()
    error.textContent = ""
    email.setError("")
    password.setError("")
    const res = await api("POST", path, { email: email.input.value, password: password.input.value })
    if (res.status === 200 || res.status === 201) return onDone()
    // Field errors beside their fields; a wrong password is the server's own words ("invalid email or password").
    showFailure(res, { email, password }, error)
  })
  return form
}

export const signInView = (main, onSignedIn) => {
  document.title = "Sign in · Pipeline Trigger Service"
  main.replaceChildren(
    el("h1", {}, "Sign in"),
    el("div", { class: "columns" },
      accountForm("Sign in", "Sign in", "/auth/login", "Password", "current-password", onSignedIn),
      accountForm("Register", "Create account", "/auth/register", "Password (8 characters or more)", "new-password", onSignedIn)))
  main.focus()
}
