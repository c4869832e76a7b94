import { describe, expect, layer as withLayer } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as fs from "node:fs/promises"
import type { Page } from "playwright-core"
import { browser, inPage, openPage, serviceLayer, ServiceUrl } from "../support/Browser.js"

interface Worker {
  readonly url: string
  readonly workerId: string
  readonly token: string
}

/** A worker call with its `wkt_` bearer token, from the test (not the browser). */
const asWorker = async (worker: Worker, path: string, body?: unknown) => {
  const res = await fetch(`${worker.url}/api/v1/workers/${worker.workerId}${path}`, {
    method: "POST",
    headers: { authorization: `Bearer ${worker.token}`, "content-type": "application/json" },
    body: JSON.stringify(body ?? {})
  })
  return { status: res.status, body: await res.json() as any }
}

const lines = (from: number, to: number) =>
  Array.from({ length: to - from + 1 }, (_, i) => ({ stream: (from + i) % 10 === 0 ? "stderr" : "stdout", text: `line ${from + i}` }))

/** A signed-in user with an environment, a trigger and a registered worker; the app loaded. */
const setup = async (page: Page, url: string, name: string) => {
  await page.goto(url)
  await page.getByRole("heading", { name: "Sign in", level: 1 }).waitFor()
  expect((await inPage(page, "POST", "/auth/register", { email: `${name}-${Date.now()}@example.com`, password: "correct horse battery" })).status).toBe(201)
  const ws = await inPage(page, "POST", "/workspaces", { name })
  const env = await inPage(page, "POST", `/workspaces/${ws.body.id}/environments`, { name: "logs" })
  const trigger = await inPage(page, "POST", `/environments/${env.body.id}/triggers`, { name, heartbeatTimeoutSeconds: 600 })
  expect(trigger.status).toBe(201)
  const wrk = await inPage(page, "POST", `/environments/${env.body.id}/api-keys`, { name: "w", prefix: "wrk" })
  const registered = await (await fetch(`${url}/api/v1/workers/register`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ registrationToken: wrk.body.token })
  })).json() as any
  const worker: Worker = { url, workerId: registered.worker.id, token: registered.token }
  // Signed in behind the sign-in form's back: load the app again.
  await page.reload()
  await page.getByRole("heading", { name: /Overview/ }).waitFor()
  const runningRun = async () => {
    const run = await inPage(page, "POST", `/triggers/${trigger.body.id}/run`, {})
    expect(run.status).toBe(201)
    expect((await asWorker(worker, `/runs/${run.body.id}/claim`)).status).toBe(200)
    expect((await asWorker(worker, `/runs/${run.body.id}/start`)).status).toBe(200)
    return run.body.id as string
  }
  return { worker, runningRun }
}

const viewport = (page: Page) => page.getByRole("log", { name: "Run log" })
const scrollState = (page: Page) =>
  viewport(page).evaluate((v) => ({ top: v.scrollTop, atEnd: v.scrollTop + v.clientHeight >= v.scrollHeight - 36 }))

withLayer(serviceLayer, { excludeTestServices: true, timeout: 240_000 })("the run page's log", (it) => {
  describe("a live run", () => {
    it.scoped("follows the log live, stops auto-scrolling when scrolled up, resumes with Follow; stderr marked; the result as JSON; line links, search, download", () =>
      Effect.gen(function*() {
        const url = yield* ServiceUrl
        const context = yield* browser
        const page = yield* Effect.promise(() => context.newPage())
        page.setDefaultTimeout(30_000)
        const errors: Array<string> = []
        page.on("pageerror", (error) => errors.push(error.message))
        yield* Effect.promise(async () => {
          const { runningRun, worker } = await setup(page, url, "live")
          const runId = await runningRun()
          expect((await asWorker(worker, `/runs/${runId}/logs`, { lines: lines(1, 100) })).status).toBe(200)

          await page.goto(`${url}/#/runs/${runId}`)
          await page.locator('.log-line[data-seq="100"]').waitFor()
          expect((await scrollState(page)).atEnd).toBe(true)
          // Live: lines appended after the page opened appear, and the view stays at the end.
          await asWorker(worker, `/runs/${runId}/logs`, { lines: lines(101, 150) })
          await page.locator('.log-line[data-seq="150"]').waitFor()
          await expect.poll(async () => (await scrollState(page)).atEnd).toBe(true)
          // stdout and stderr told apart.
          expect(await page.locator('.log-line[data-seq="150"]').getAttribute("data-stream")).toBe("stderr")
          expect(await page.locator('.log-line[data-seq="150"]').evaluate((row) => row.classList.contains("stderr"))).toBe(true)
          expect(await page.locator('.log-line[data-seq="149"]').getAttribute("data-stream")).toBe("stdout")

          // Scrolled up: new lines arrive, the view stays where the user put it.
          await viewport(page).evaluate((v) => { v.scrollTop = 0 })
          await page.getByRole("button", { name: "Follow" }).waitFor()
          await asWorker(worker, `/runs/${runId}/logs`, { lines: lines(151, 200) })
          await page.getByRole("status").filter({ hasText: "200 lines" }).waitFor()
          await page.waitForTimeout(300)
          expect((await scrollState(page)).top).toBe(0)
          expect(await page.locator('.log-line[data-seq="1"]').isVisible()).toBe(true)
          // Follow: back to the end, and following again.
          await page.getByRole("button", { name: "Follow" }).click()
          await page.locator('.log-line[data-seq="200"]').waitFor()
          expect((await scrollState(page)).atEnd).toBe(true)
          await asWorker(worker, `/runs/${runId}/logs`, { lines: lines(201, 220) })
          await page.locator('.log-line[data-seq="220"]').waitFor()
          await expect.poll(async () => (await scrollState(page)).atEnd).toBe(true)

          // The run ends: the stream says so.
          const output = { artifact: "dist/app.tgz", tests: { passed: 3 } }
          expect((await asWorker(worker, `/runs/${runId}/complete`, { status: "succeeded", stdout: "done", output })).status).toBe(200)
          await expect.poll(() => page.locator("[data-log-state]").getAttribute("data-log-state")).toBe("ended")
          // The structured result, as formatted JSON (jsonb keeps no key order).
          await expect.poll(async () => JSON.parse(await page.getByLabel("Result", { exact: true }).textContent() ?? "null")).toEqual(output)
          expect(await page.getByLabel("Result", { exact: true }).textContent()).toContain('\n  "artifact": "dist/app.tgz"')

          // Search steps to a match; a line number is a link to that line.
          await page.getByLabel("Search the log").fill("line 42")
          await page.getByLabel("Search the log").press("Enter")
          await page.locator('.log-line.match[data-seq="42"]').waitFor()
          await page.getByRole("link", { name: "Line 42", exact: true }).click()
          expect(page.url()).toContain(`#/runs/${runId}?line=42`)
          await page.locator('.log-line.highlighted[data-seq="42"]').waitFor()
          // Opened from the link: the line is shown highlighted.
          await page.reload()
          await page.locator('.log-line.highlighted[data-seq="42"]').waitFor()
          expect(await page.locator('.log-line.highlighted[data-seq="42"]').isVisible()).toBe(true)

          const [download] = await Promise.all([page.waitForEvent("download"), page.getByRole("button", { name: "Download" }).click()])
          const text = await fs.readFile((await download.path())!, "utf8")
          expect(text).toBe(lines(1, 220).map((l) => `${l.text}\n`).join(""))
        })
        expect(errors).toEqual([])
      }), 240_000)
  })

  describe("a 100,000-line log", () => {
    it.scoped("first lines painted from the first page, soon; the page stays responsive while the rest loads, a few dozen rows in the DOM", () =>
      Effect.gen(function*() {
        const url = yield* ServiceUrl
        const context = yield* browser
        const { page, errors } = yield* openPage(context)
        yield* Effect.promise(async () => {
          const { runningRun, worker } = await setup(page, url, "big")
          const runId = await runningRun()
          for (let i = 0; i < 100; i++) {
            const res = await asWorker(worker, `/runs/${runId}/logs`, { sequence: i * 1000 + 1, lines: lines(i * 1000 + 1, i * 1000 + 1000) })
            expect(res.status).toBe(200)
          }
          expect((await asWorker(worker, `/runs/${runId}/complete`, { status: "succeeded" })).status).toBe(200)

          // From the runs list to the run, as a user goes: the first rows of the log painted from the
          // first page, before the rest has loaded (what the status counts then), and soon.
          await page.goto(`${url}/#/runs`)
          await page.getByRole("heading", { name: "Runs" }).waitFor()
          // Timed in the page (the test process also serves the page and runs its database, so its own clock would count their work).
          const { counted, firstPaint } = await page.evaluate(`new Promise((resolve) => {
            const start = performance.now()
            const seen = () => document.querySelector('.log-line[data-seq="1"]')?.isConnected === true
            const observer = new MutationObserver(() => {
              if (!seen()) return
              observer.disconnect()
              requestAnimationFrame(() => resolve({
                counted: document.querySelector('.log-toolbar [role="status"]')?.textContent ?? "",
                firstPaint: performance.now() - start
              }))
            })
            observer.observe(document.body, { childList: true, subtree: true })
            location.hash = ${JSON.stringify(`#/runs/${runId}`)}
          })`) as { counted: string; firstPaint: number }
          // Painted while fewer than all the lines were loaded: not after fetching the whole log.
          expect(counted).toMatch(/^[\d,]+ lines$/)
          expect(Number(counted.replace(/\D/g, ""))).toBeLessThan(100_000)
          // The target is 1 s on a quiet machine (a figure for a benchmark, not a test); the bound is
          // for a machine at load 16, where Chromium shares two cores with the whole suite.
          expect(firstPaint).toBeLessThanOrEqual(10_000)
          await page.locator('.log-line[data-seq="1"]').waitFor()

          // Responsive while the other 99,500 lines load: the longest gap between two frames, timed in the page over 2 s.
          const longestFrameGap = await page.evaluate(`new Promise((resolve) => {
            let last = performance.now()
            let longest = 0
            const end = last + 2000
            const frame = (now) => {
              longest = Math.max(longest, now - last)
              last = now
              if (now < end) requestAnimationFrame(frame)
              else resolve(longest)
            }
            requestAnimationFrame(frame)
          })`) as number
          // Rendering the 100,000 lines in one task would hold the page for seconds; at load 16 a
          // frame can wait half a second on the scheduler alone, so the bound is loose (the DOM
          // count below is what shows the lines are not all rendered).
          expect(longestFrameGap).toBeLessThan(2_000)
          await page.getByRole("status").filter({ hasText: "100,000 lines" }).waitFor()
          expect(await page.locator(".log-line").count()).toBeLessThan(200)

          // The end of the log, and a search through all of it.
          await viewport(page).evaluate((v) => { v.scrollTop = v.scrollHeight })
          await page.locator('.log-line[data-seq="100000"]').waitFor()
          expect(await page.locator(".log-line").count()).toBeLessThan(200)
          await page.getByLabel("Search the log").fill("line 99999")
          await page.getByLabel("Search the log").press("Enter")
          await page.locator('.log-line.match[data-seq="99999"]').waitFor()
          expect(await page.locator(".log-line").count()).toBeLessThan(200)
        })
        expect(errors).toEqual([])
      }), 240_000)
  })
})
