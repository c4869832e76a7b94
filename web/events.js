// The environment's run transitions, live (GET /environments/{envId}/events,
// Server-Sent Events with the session cookie). EventSource resumes by itself
// after a dropped connection (it sends Last-Event-ID, the server replays what
// was missed); a new connection (after the server refused one, or when a
// hidden tab comes back) cannot resume, so the page is told to read its data
// again through `onOpen`.

const retryMs = 10_000

/**
 * Calls `onRun(run)` for each event, `onOpen()` each time a connection opens
 * (anything may have changed before it: read the page's data again) and
 * `onState("live" | "reconnecting" | "paused")` as the connection changes.
 * While the tab is hidden the stream is closed (no events pile up in a tab
 * nobody looks at). Returns the function that stops it all.
 */
export const followRuns = (envId, { onRun, onOpen = () => {}, onState = () => {} }) => {
  let source
  let retry
  let stopped = false

  const open = () => {
    clearTimeout(retry)
    source?.close()
    source = new EventSource(`/api/v1/environments/${encodeURIComponent(envId)}/events`)
    source.addEventListener("open", () => {
      onState("live")
      onOpen()
    })
    source.addEventListener("run", (event) => {
      let run
      try {
        run = JSON.parse(event.data)
      } catch {
        return
      }
      onRun(run)
    })
    source.addEventListener("error", () => {
      if (source.readyState === EventSource.CLOSED) {
        // Refused (not a stream: signed out, no access, the service restarting): try a new connection later.
        onState("reconnecting")
        retry = setTimeout(() => stopped || document.hidden || open(), retryMs)
      } else onState("reconnecting")
    })
  }
  const close = () => {
    clearTimeout(retry)
    source?.close()
    source = undefined
  }
  const onVisibility = () => {
    if (stopped) return
    if (document.hidden) {
      close()
      onState("paused")
    } else if (source === undefined) open()
  }

  document.addEventListener("visibilitychange", onVisibility)
  if (document.hidden) onState("paused")
  else open()
  return () => {
    stopped = true
    document.removeEventListener("visibilitychange", onVisibility)
    close()
  }
}
