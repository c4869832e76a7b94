import { describe, expect, layer as withLayer } from "@effect/vitest"
import * as Effect from "effect/Effect"
import type { Page } from "playwright-core"
import { browser, inPage, openPage, screenshot, serviceLayer, ServiceUrl } from "../support/Browser.js"

const password = "correct horse battery"

/** Opens a page from the navigation bar. */
/** `expect.poll` with room for a loaded machine (its default gives up after 1 s). */
const until = <T>(fn: () => T | Promise<T>) => expect.poll(fn, { timeout: 30_000, interval: 200 })

const nav = (page: Page, name: string) =>
  page.getByRole("navigation", { name: "Pages" }).getByRole("link", { name, exact: true }).click()

// Flow control I and II as the dashboard shows them (docs/flow-control.md,
// docs/delays-and-retries.md): why each queued run waits, the pools with their
// limit and use, a delayed run counting down, an expired run, a retry waiting
// its backoff. One worker, driven over the worker protocol by the test (it
// claims only what the test says), keeps runs placed and wait reasons stable.
withLayer(serviceLayer, { excludeTestServices: true, timeout: 180_000 })("flow control in a real browser", (it) => {
  describe("wait reasons, pools, delays, expiry and backoff", () => {
    it.scoped("each wait reason on the run page and in the runs table; pools with limit and use, edited by an admin; limits, pool, time-to-live and backoff in the trigger form; a countdown, Start now, cancel; expired; retry backoff; a viewer sees no write buttons", () =>
      Effect.gen(function*() {
        const url = yield* ServiceUrl
        const context = yield* browser
        const { page, errors } = yield* openPage(context)
        const stamp = Date.now()
        const viewerEmail = `flow-viewer-${stamp}@example.com`
        const call = (method: string, path: string, body?: unknown) => inPage(page, method, path, body)
        const created = async (method: string, path: string, body?: unknown) => {
          const res = await call(method, path, body)
          expect(res.status, `${method} ${path} ${JSON.stringify(res.body)}`).toBeLessThan(300)
          return res.body
        }
        let worker = { id: "", token: "" }
        const asWorker = async (method: string, path: string, body?: unknown) => {
          const res = await fetch(`${url}/api/v1/workers/${worker.id}${path}`, {
            method,
            headers: { authorization: `Bearer ${worker.token}`, ...(body === undefined ? {} : { "content-type": "application/json" }) },
            body: body === undefined ? undefined : JSON.stringify(body)
          })
          expect(res.status, `worker ${method} ${path}`).toBe(200)
          return await res.json() as any
        }
        // A poll is an assignment pass, and keeps the worker online.
        const poll = async () => worker.id === "" ? undefined : await asWorker("GET", "/poll?wait=0")
        const runOf = async (id: string) => (await call("GET", `/runs/${id}`)).body
        const statusText = () => page.locator(".run-status").textContent()
        const openRun = async (id: string) => {
          await poll()
          await page.goto(`${url}/#/runs/${id}`)
          await page.locator(".run-status").waitFor()
        }
        const rowOf = (id: string) => page.locator(`tr[data-run="${id}"]`)

        let envId = ""
        let plainTrigger = ""
        let formTrigger = ""
        let wsId = ""
        const runs: Record<string, string> = {}
        yield* Effect.promise(async () => {
          await page.goto(url)
          await page.getByRole("heading", { name: "Sign in", level: 1 }).waitFor()
          // The viewer registers first (and signs out); the admin owns the workspace and adds them.
          const viewer = await call("POST", "/auth/register", { email: viewerEmail, password })
          expect(viewer.status).toBe(201)
          expect(await page.evaluate(async () => (await fetch("/api/v1/auth/logout", { method: "POST" })).status)).toBeLessThan(300)
          expect((await call("POST", "/auth/register", { email: `flow-admin-${stamp}@example.com`, password })).status).toBe(201)
          const ws = await created("POST", "/workspaces", { name: "Flow" })
          wsId = ws.id
          envId = (await created("POST", `/workspaces/${ws.id}/environments`, { name: "production" })).id
          await created("POST", `/environments/${envId}/members`, { userId: viewer.body.id, role: "viewer" })
          await created("POST", `/environments/${envId}/concurrency-pools`, { name: "gpu", limit: 1 })
          const trigger = async (name: string, fields: Record<string, unknown> = {}) =>
            (await created("POST", `/environments/${envId}/triggers`, { name, ...fields })).id as string
          const triggers = {
            solo: await trigger("deploy", { concurrency: { limit: 1 } }),
            perCustomer: await trigger("build", { concurrency: { perKey: 1 } }),
            pooled: await trigger("render", { concurrency: { pool: "gpu" } }),
            plain: await trigger("report"),
            flaky: await trigger("sync", { maxRetries: 1, retry: { initialDelaySeconds: 120 } })
          }
          plainTrigger = triggers.plain
          formTrigger = await trigger("nightly")
          const request = async (triggerId: string, body: Record<string, unknown> = {}) =>
            (await created("POST", `/triggers/${triggerId}/run`, body)).id as string

          // No worker yet: the run says so; a run with a 1 s time-to-live ends expired.
          runs.noWorker = await request(triggers.plain)
          runs.expired = await request(triggers.plain, { ttlSeconds: 1 })
          await page.reload()
          await page.getByRole("heading", { name: "Overview · production" }).waitFor()
          await openRun(runs.noWorker)
          await until(statusText).toContain("waiting: no worker online")
          await nav(page, "Runs")
          await until(() => rowOf(runs.noWorker).textContent()).toContain("waiting: no worker online")
          await until(() => rowOf(runs.expired).locator(".badge-expired").count()).toBe(1)
          await openRun(runs.expired)
          await until(statusText).toContain("expired")
          await page.locator(".timeline .reason", { hasText: "expired" }).waitFor()

          // One worker: each limit now holds a second run.
          const token = await created("POST", `/environments/${envId}/api-keys`, { name: "registration", prefix: "wrk" })
          const registered = await fetch(`${url}/api/v1/workers/register`, {
            method: "POST",
            headers: { "content-type": "application/json" },
            body: JSON.stringify({ registrationToken: token.token, label: "box" })
          })
          expect(registered.status).toBe(201)
          const body = await registered.json() as any
          worker = { id: body.worker.id, token: body.token }
          for (const [name, id, extra] of [
            ["solo", triggers.solo, {}],
            ["perCustomer", triggers.perCustomer, { concurrencyKey: "acme" }],
            ["pooled", triggers.pooled, {}],
            ["flaky", triggers.flaky, {}]
          ] as const) {
            runs[`${name}1`] = await request(id, extra)
            if (name !== "flaky") runs[`${name}2`] = await request(id, extra)
          }
          runs.delayed = await request(triggers.plain, { delaySeconds: 600 })
          await until(async () => {
            await poll()
            return [(await runOf(runs.solo1)).status, (await runOf(runs.perCustomer1)).status, (await runOf(runs.pooled1)).status, (await runOf(runs.flaky1)).status]
          }).toEqual(["assigned", "assigned", "assigned", "assigned"])
          // The flaky run fails: its retry waits out its 120 s backoff.
          await asWorker("POST", `/runs/${runs.flaky1}/claim`)
          await asWorker("POST", `/runs/${runs.flaky1}/complete`, { status: "failed" })
          runs.retry = (await runOf(runs.flaky1)).retriedByRunId
          expect(runs.retry).toEqual(expect.any(String))
        })

        // Each reason on the run page, with the key or the pool that holds the run.
        yield* Effect.promise(async () => {
          const expected: Array<[string, string]> = [
            [runs.solo2!, "waiting: trigger limit"],
            [runs.perCustomer2!, "waiting: key limit (key acme)"],
            [runs.pooled2!, "waiting: pool limit (pool gpu)"],
            [runs.retry!, "waiting: retry backoff"],
            [runs.delayed!, "waiting: delayed"]
          ]
          for (const [id, text] of expected) {
            await openRun(id)
            await until(statusText).toContain(text)
          }
          await openRun(runs.pooled2!)
          await page.getByText("pool gpu: limit 1, 1 in use").waitFor()
          await openRun(runs.retry!)
          await until(statusText).toMatch(/starts in (2 min|1[0-9]{2} s|1 min)/)
          expect(await page.getByRole("button", { name: "Start now" }).count()).toBe(1)

          // And in the runs table, each beside its status.
          await poll()
          await nav(page, "Runs")
          await page.getByRole("heading", { name: "Runs" }).waitFor()
          for (const [id, text] of expected) await until(() => rowOf(id).textContent()).toContain(text)
          await until(() => rowOf(runs.delayed!).textContent()).toContain("starts in 10 min")
          await until(() => rowOf(runs.retry!).textContent()).toContain("starts in")

          // The triggers list: each trigger's limits and the places its runs hold now.
          await nav(page, "Triggers")
          await until(() => page.getByRole("row").filter({ hasText: "deploy" }).textContent()).toContain("at most 1 at once · 1 in use now")
          await until(() => page.getByRole("row").filter({ hasText: "build" }).textContent()).toContain("1 per key · 1 in use now")
          await until(() => page.getByRole("row").filter({ hasText: "render" }).textContent()).toContain("in pool gpu · 1 in use now")
        })

        // The pools: limit and use; an admin creates, edits and deletes one; a pool in use is not deleted (409).
        yield* Effect.promise(async () => {
          await poll()
          await nav(page, "Pools")
          await page.getByRole("heading", { name: "Concurrency pools" }).waitFor()
          const gpu = page.locator("tr[data-pool]").filter({ hasText: "gpu" })
          await until(() => gpu.textContent()).toContain("1 of 1 in use (full)")
          expect(await gpu.getByRole("link", { name: "render" }).count()).toBe(1)
          const form = page.getByRole("form", { name: "Create a pool" })
          await form.getByLabel("Name", { exact: true }).fill("batch")
          await form.getByLabel("Limit", { exact: true }).fill("0")
          await form.getByRole("button", { name: "Create pool" }).click()
          await until(() => form.locator(".field-error").allTextContents()).toContainEqual(expect.stringContaining("from 1 to 10000"))
          await form.getByLabel("Limit", { exact: true }).fill("3")
          await form.getByRole("button", { name: "Create pool" }).click()
          const batch = page.locator("tr[data-pool]").filter({ hasText: "batch" })
          await until(() => batch.textContent()).toContain("0 of 3 in use")
          await screenshot(page, "pools")

          // The pool's limit raised to 2: the waiting render run takes the new place, and the use follows in place.
          await page.getByRole("button", { name: "Edit gpu" }).click()
          const edit = page.getByRole("form", { name: "Edit pool gpu" })
          await edit.getByLabel("Limit", { exact: true }).fill("2")
          await edit.getByRole("button", { name: "Save" }).click()
          await until(async () => {
            await poll()
            return gpu.textContent()
          }).toContain("2 of 2 in use (full)")
          expect((await runOf(runs.pooled2!)).status).toBe("assigned")

          await page.getByRole("button", { name: "Delete batch" }).click()
          await page.getByRole("dialog", { name: "Delete pool \"batch\"?" }).getByRole("button", { name: "Delete pool" }).click()
          await until(() => batch.count()).toBe(0)
          await page.getByRole("button", { name: "Delete gpu" }).click()
          await page.getByRole("dialog", { name: "Delete pool \"gpu\"?" }).getByRole("button", { name: "Delete pool" }).click()
          await page.getByRole("alert").filter({ hasText: "Not deleted: concurrency pool is used by 1 trigger(s)" }).waitFor()
          expect(await gpu.count()).toBe(1)
        })

        // The trigger form sets limits, pool, time-to-live and backoff; a bad limit is said beside its control.
        yield* Effect.promise(async () => {
          await page.goto(`${url}/#/triggers/${formTrigger}`)
          await page.getByRole("heading", { name: "Trigger · nightly" }).waitFor()
          const form = page.getByRole("form", { name: "Edit trigger" })
          const concurrency = form.getByRole("group", { name: "Concurrency" })
          await concurrency.getByLabel("Limit", { exact: true }).fill("0")
          await form.getByRole("button", { name: "Save changes" }).click()
          await until(() => concurrency.locator(".field").first().locator(".field-error").textContent()).toContain("concurrency.limit must be an integer from 1 to 10000")
          expect((await call("GET", `/triggers/${formTrigger}`)).body.concurrency).toBeNull()
          await concurrency.getByLabel("Limit", { exact: true }).fill("2")
          await concurrency.getByLabel("Per key", { exact: true }).fill("1")
          await concurrency.getByLabel("Key from input field", { exact: true }).fill("tenant")
          await concurrency.getByLabel("Pool", { exact: true }).selectOption("gpu")
          await form.getByLabel("Time-to-live (seconds)", { exact: true }).fill("900")
          const retry = form.getByRole("group", { name: "Retry backoff" })
          await retry.getByLabel("First delay (seconds)", { exact: true }).fill("10")
          await retry.getByLabel("Factor", { exact: true }).fill("3")
          await form.getByRole("button", { name: "Save changes" }).click()
          const facts = page.locator("dl.facts")
          await until(() => facts.textContent()).toContain("at most 2 at once, 1 per key, key from input.tenant, in pool gpu · 0 in use now")
          expect(await facts.textContent()).toContain("10 s, × 3, at most 3600 s")
          expect(await facts.textContent()).toContain("900 s")
          expect((await call("GET", `/triggers/${formTrigger}`)).body).toMatchObject({
            concurrency: { limit: 2, perKey: 1, keyFrom: "tenant", pool: "gpu" },
            ttlSeconds: 900,
            retry: { initialDelaySeconds: 10, factor: 3 }
          })
        })

        // A delayed run counts down, and starts when asked; another is cancelled.
        yield* Effect.promise(async () => {
          // Requested now, so its 50 s are still ahead however slow the steps above were.
          const soon = (await created("POST", `/triggers/${plainTrigger}/run`, { delaySeconds: 50 })).id as string
          await openRun(soon)
          const countdown = page.locator(".run-status .countdown")
          await until(() => countdown.textContent()).toMatch(/^starts in \d+ s$/)
          const first = await countdown.textContent()
          await until(() => countdown.textContent()).not.toBe(first)
          await screenshot(page, "run-delayed")
          await page.getByRole("button", { name: "Start now" }).click()
          await page.getByText("Starting now: the run goes to the next free worker.").waitFor()
          await until(async () => {
            await poll()
            return statusText()
          }).toContain("assigned")

          await openRun(runs.delayed!)
          await until(statusText).toContain("starts in 10 min")
          await page.getByRole("button", { name: "Cancel run" }).click()
          await page.getByRole("dialog", { name: "Cancel this run?" }).getByRole("button", { name: "Cancel run" }).click()
          await until(statusText).toContain("cancelled")
          expect(await page.locator(".run-status .countdown").count()).toBe(0)
        })

        // A reason that changes with no event of the run's own: the only worker drains, then takes runs again.
        yield* Effect.promise(async () => {
          const drain = async (draining: boolean) => created("PATCH", `/workspaces/${wsId}/workers/${worker.id}`, { draining })
          await openRun(runs.solo2!)
          await until(statusText).toContain("waiting: trigger limit")
          await drain(true)
          await until(statusText).toContain("waiting: no worker online")
          await nav(page, "Runs")
          await until(() => rowOf(runs.solo2!).textContent()).toContain("waiting: no worker online")
          await drain(false)
          await until(() => rowOf(runs.solo2!).textContent()).toContain("waiting: trigger limit")
        })

        // The viewer: the same pages, no write buttons.
        yield* Effect.promise(async () => {
          await page.getByRole("button", { name: "Sign out" }).click()
          const signIn = page.getByRole("form", { name: "Sign in" })
          await signIn.getByLabel("Email", { exact: true }).fill(viewerEmail)
          await signIn.getByLabel("Password", { exact: true }).fill(password)
          await signIn.getByRole("button", { name: "Sign in" }).click()
          await until(() => page.locator("#account").textContent()).toContain("Role: viewer")
          await poll()
          await nav(page, "Pools")
          await page.locator("tr[data-pool]").filter({ hasText: "gpu" }).waitFor()
          await page.getByText("Pools are created, edited and deleted by admins").waitFor()
          expect(await page.locator("main button").count()).toBe(0)
          await openRun(runs.retry!)
          await until(statusText).toContain("waiting: retry backoff")
          expect(await page.locator("main button:not(.run-log button)").count()).toBe(0)
        })
        expect(errors).toEqual([])
      }), 180_000)
  })
})
