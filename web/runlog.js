// A run's log on the run page (GET /runs/{id}/logs): read page by page, then
// followed live (the same URL as Server-Sent Events) while the run is active.
// Virtualised: only the rows in view (and a few around them) are in the DOM,
// so a 100,000-line log costs a few dozen elements. Auto-scroll follows the
// end until the user scrolls up, and resumes when they scroll back down (or
// press "Follow"). Line numbers are links (`#/runs/{id}?line=N`); search
// steps through the matches; Download saves the log as text.
import { api, messageOf, query } from "./api.js"
import { alertBox, el } from "./dom.js"

const rowHeight = 18
const overscan = 20
const pageSize = 5000
// The first page is small, so the first lines show at once; the rest come in larger pages.
const firstPageSize = 500

/**
 * The log view of run `runId`; `line` (a number from the URL) is highlighted
 * and scrolled to once loaded. Returns `{ node, stop }`; `stop` closes the stream.
 */
export const logView = (runId, { active, line }) => {
  const seqs = []
  const streams = []
  const texts = []
  let highlighted = line ?? null
  // Set once the log is read up to its live end (an active run): from then on new lines keep the view at the end.
  let following = false
  let source
  let stopped = false
  let matches = []
  let current = -1

  const failure = alertBox()
  const status = el("span", { class: "hint", role: "status", "data-log-state": "loading" }, "Loading the log…")
  const spacer = el("div", { class: "log-spacer" })
  const rows = el("div", { class: "log-rows" })
  const viewport = el("div", { class: "log-view", tabindex: "0", role: "log", "aria-label": "Run log", "aria-live": "off" }, spacer, rows)
  const followButton = el("button", { type: "button", class: "secondary small", hidden: true, onclick: () => {
    following = true
    followButton.hidden = true
    toEnd()
  } }, "Follow")
  const search = el("input", { type: "search", "aria-label": "Search the log", placeholder: "Search the log" })
  const found = el("span", { class: "hint", "aria-live": "polite" })
  const step = (by) => {
    if (matches.length === 0) return
    current = (current + by + matches.length) % matches.length
    found.textContent = `${current + 1} of ${matches.length}`
    reveal(matches[current])
  }
  const findAll = () => {
    const needle = search.value.toLowerCase()
    matches = []
    current = -1
    if (needle !== "") texts.forEach((text, i) => { if (text.toLowerCase().includes(needle)) matches.push(i) })
    found.textContent = needle === "" ? "" : matches.length === 0 ? "no match" : `${matches.length} matches`
    if (matches.length > 0) step(1)
    paint()
  }
  search.addEventListener("keydown", (event) => {
    if (event.key === "Enter") {
      event.preventDefault()
      if (matches.length === 0 || current === -1) findAll()
      else step(event.shiftKey ? -1 : 1)
    }
  })
  search.addEventListener("search", findAll)
  const download = el("button", { type: "button", class: "secondary small", onclick: () => {
    const blob = new Blob([texts.map((text) => `${text}\n`).join("")], { type: "text/plain;charset=utf-8" })
    const link = el("a", { href: URL.createObjectURL(blob), download: `run-${runId}.log` })
    link.click()
    setTimeout(() => URL.revokeObjectURL(link.href), 10_000)
  } }, "Download")

  const atEnd = () => viewport.scrollTop + viewport.clientHeight >= viewport.scrollHeight - rowHeight * 2
  const toEnd = () => { viewport.scrollTop = viewport.scrollHeight }
  const reveal = (index) => {
    following = false
    followButton.hidden = !active()
    viewport.scrollTop = Math.max(0, index * rowHeight - viewport.clientHeight / 2)
    paint()
  }

  const row = (i) => {
    const seq = seqs[i]
    const classes = ["log-line", streams[i]]
    if (seq === highlighted) classes.push("highlighted")
    if (current !== -1 && matches[current] === i) classes.push("match")
    return el("div", { class: classes.join(" "), "data-seq": String(seq), "data-stream": streams[i] },
      el("a", {
        class: "ln",
        href: `#/runs/${runId}?line=${seq}`,
        "aria-label": `Line ${seq}`,
        // A link to share; following it here highlights the line without reloading the page.
        onclick: (event) => {
          event.preventDefault()
          highlighted = seq
          history.replaceState(null, "", `#/runs/${runId}?line=${seq}`)
          paint()
        }
      }, String(seq)),
      el("span", { class: "stream", "aria-label": streams[i] }, streams[i] === "stderr" ? "err" : ""),
      el("span", { class: "text" }, texts[i]))
  }

  // The rows in the DOM by index, each with what it shows: a row is made again only when that changes.
  let shown = new Map()
  let range = ""
  const paint = () => {
    spacer.style.height = `${seqs.length * rowHeight}px`
    const first = Math.max(0, Math.floor(viewport.scrollTop / rowHeight) - overscan)
    const last = Math.min(seqs.length, Math.ceil((viewport.scrollTop + viewport.clientHeight) / rowHeight) + overscan)
    const next = new Map()
    let changed = `${first}:${last}` !== range
    for (let i = first; i < last; i++) {
      const state = `${seqs[i] === highlighted}:${current !== -1 && matches[current] === i}`
      const entry = shown.get(i)
      if (entry !== undefined && entry.state === state) next.set(i, entry)
      else {
        next.set(i, { node: row(i), state })
        changed = true
      }
    }
    shown = next
    if (!changed) return
    range = `${first}:${last}`
    rows.style.transform = `translateY(${first * rowHeight}px)`
    rows.replaceChildren(...[...next.values()].map((entry) => entry.node))
  }

  viewport.addEventListener("scroll", () => {
    // Scrolling up stops the auto-scroll; back at the end it resumes.
    if (atEnd()) {
      following = true
      followButton.hidden = true
    } else if (following) {
      following = false
      followButton.hidden = !active()
    }
    paint()
  })

  let scheduled = false
  const append = (items) => {
    for (const item of items) {
      // A line already shown (a page and the stream overlapping) is not shown twice.
      if (seqs.length > 0 && item.seq <= seqs[seqs.length - 1]) continue
      seqs.push(item.seq)
      streams.push(item.stream)
      texts.push(item.text)
    }
    if (scheduled) return
    scheduled = true
    requestAnimationFrame(() => {
      scheduled = false
      paint()
      if (following) toEnd()
      paint()
      counts()
    })
  }
  const counts = () => {
    status.textContent = `${seqs.length.toLocaleString("en")} lines`
  }

  const follow = () => {
    if (stopped) return
    // Caught up with an active run: follow its end, unless the user went somewhere in it already.
    if (highlighted === null && viewport.scrollTop === 0) {
      following = true
      requestAnimationFrame(toEnd)
    }
    const after = seqs.length === 0 ? 0 : seqs[seqs.length - 1]
    source = new EventSource(`/api/v1/runs/${encodeURIComponent(runId)}/logs${query({ follow: 1, after })}`)
    status.dataset.logState = "live"
    source.addEventListener("line", (event) => {
      try {
        append([JSON.parse(event.data)])
      } catch {
        // Not a line: ignored.
      }
    })
    source.addEventListener("end", () => {
      source.close()
      status.dataset.logState = "ended"
      followButton.hidden = true
    })
  }

  const load = async () => {
    let after = 0
    let limit = firstPageSize
    for (;;) {
      const res = await api("GET", `/runs/${encodeURIComponent(runId)}/logs${query({ after, limit })}`)
      if (stopped) return
      if (res.status !== 200) {
        failure.textContent = messageOf(res)
        return
      }
      append(res.body.items)
      if (res.body.nextAfter === null) {
        status.dataset.logState = "ended"
        break
      }
      if (res.body.items.length < limit) {
        follow()
        break
      }
      after = res.body.nextAfter
      limit = pageSize
    }
    if (highlighted !== null) {
      const index = seqs.indexOf(highlighted)
      if (index !== -1) requestAnimationFrame(() => reveal(index))
    }
    if (seqs.length === 0 && status.dataset.logState === "ended") status.textContent = "No log lines."
  }
  void load()
  // Laid out (or resized) later than the first lines came: paint what is now in view.
  new ResizeObserver(() => {
    if (following) toEnd()
    paint()
  }).observe(viewport)

  const node = el("section", { class: "run-log", "aria-label": "Log" },
    el("div", { class: "log-toolbar" }, status, search, found, followButton, download),
    failure, viewport)
  return {
    node,
    stop: () => {
      stopped = true
      source?.close()
    }
  }
}
