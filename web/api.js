// Calls to /api/v1 with the session cookie. The browser adds the Origin the
// server checks on writes; nothing here holds a token.

let onSignedOut = () => {}

/** Called once by the shell: what to do when the session has ended (a 401 outside sign-in). */
export const whenSignedOut = (handler) => {
  onSignedOut = handler
}

/** `{status, body}` for one call; a network failure is status 0 with an `{error}` body, never a throw. */
export const api = async (method, path, body) => {
  let response
  try {
    response = await fetch(`/api/v1${path}`, {
      method,
      credentials: "same-origin",
      headers: body === undefined ? {} : { "content-type": "application/json" },
      body: body === undefined ? undefined : JSON.stringify(body)
    })
  } catch {
    return { status: 0, body: { error: "The service could not be reached. Try again in a moment." } }
  }
  const text = await response.text()
  let parsed
  try {
    parsed = text.length > 0 ? JSON.parse(text) : undefined
  } catch {
    parsed = { error: text }
  }
  const res = { status: response.status, body: parsed, path }
  if (res.status === 401 && !path.startsWith("/auth/")) onSignedOut()
  return res
}

/**
 * The server's answer as one sentence a person can act on. A 401 from sign-in
 * or registration is the server's own reason (a wrong password); elsewhere it
 * means the session ended. A 400's messages each name their field.
 */
export const messageOf = (res) => {
  if (res.status === 403) return "You do not have permission to do this in this environment."
  if (res.status === 401 && !res.path?.startsWith("/auth/")) return "Your session has ended. Sign in again."
  const error = res.body?.error ?? `Request failed (${res.status}).`
  const details = res.body?.details
  const messages = [...details?.formErrors ?? [], ...Object.values(details?.fieldErrors ?? {}).flat()]
  return messages.length > 0 ? `${error}: ${messages.join("; ")}` : error
}

/** `?a=1&b=2` from the entries that have a value; "" when none. */
export const query = (params) => {
  const search = new URLSearchParams()
  for (const [key, value] of Object.entries(params)) {
    if (value !== undefined && value !== null && value !== "") search.set(key, String(value))
  }
  const text = search.toString()
  return text === "" ? "" : `?${text}`
}

/** Every item of a list endpoint, following `nextCursor` (for small lists: members, workers, triggers). */
export const all = async (path, max = 1000) => {
  const items = []
  let cursor
  for (;;) {
    const sep = path.includes("?") ? "&" : "?"
    const res = await api("GET", `${path}${sep}limit=200${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ""}`)
    if (res.status !== 200) return { status: res.status, body: res.body, items }
    items.push(...res.body.items)
    cursor = res.body.nextCursor
    if (!cursor || items.length >= max) return { status: 200, items }
  }
}
