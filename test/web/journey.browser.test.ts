import { describe, expect, layer as withLayer } from "@effect/vitest"
import * as Deferred from "effect/Deferred"
import * as Effect from "effect/Effect"
import * as Fiber from "effect/Fiber"
import { createServer } from "node:http"
import type { AddressInfo } from "node:net"
import type { Locator, Page } from "playwright-core"
import { runWorker } from "../../src/WorkerSdk/WorkerSdk.js"
import { fetchLayer } from "../sdk/support.js"
import { browser, screenshot, serviceLayerWith, ServiceUrl } from "../support/Browser.js"

/** Opens a page from the navigation bar. */
const nav = (page: Page, name: string) =>
  page.getByRole("navigation", { name: "Pages" }).getByRole("link", { name, exact: true }).click()

/** The field wrapper (label, control, hint, error) around a labelled control. */
const fieldOf = (form: Locator, label: string | RegExp) =>
  // The inner locator of `has` is matched inside each candidate: it starts from the page, not the form.
  form.locator(".field").filter({ has: form.page().getByLabel(label, { exact: typeof label === "string" }) })

/** A webhook receiver on loopback that answers 200 with a short body. */
const receiver = Effect.acquireRelease(
  Effect.async<{ url: string; close: () => void; hits: Array<string> }>((resume) => {
    const hits: Array<string> = []
    const server = createServer((req, res) => {
      let body = ""
      req.on("data", (chunk) => body += chunk)
      req.on("end", () => {
        hits.push(body)
        res.writeHead(200, { "content-type": "text/plain" }).end("thanks")
      })
    })
    server.listen(0, "127.0.0.1", () =>
      resume(Effect.succeed({
        url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`,
        close: () => server.close(),
        hits
      })))
  }),
  (r) => Effect.sync(() => r.close())
)

const owner = `owner-${Date.now()}@example.com`
const viewer = `viewer-${Date.now()}@example.com`
const password = "correct horse battery"

withLayer(serviceLayerWith({ webhookAllowPrivateNetworks: true }), { excludeTestServices: true, timeout: 180_000 })("dashboard journey in a real browser", (it) => {
  describe("from a new account to a succeeded run, and a viewer's view", () => {
    it.scoped("register → trigger (with a server validation error) → worker → run now → succeeded → run page; members, keys, audit; a viewer sees no write buttons", () =>
      Effect.gen(function*() {
        const url = yield* ServiceUrl
        const hook = yield* receiver
        const context = yield* browser
        const page = yield* Effect.promise(() => context.newPage())
        // The machine may be busy (tests of other files run beside this one): generous waits, never sleeps.
        page.setDefaultTimeout(60_000)
        const errors: Array<string> = []
        page.on("pageerror", (error) => errors.push(error.message))

        // Register, workspace, environment.
        yield* Effect.promise(async () => {
          await page.goto(url)
          const register = page.getByRole("form", { name: "Register" })
          await register.getByLabel("Email", { exact: true }).fill(owner)
          await register.getByLabel(/Password/).fill(password)
          await register.getByRole("button", { name: "Create account" }).click()
          await page.getByLabel("Workspace name", { exact: true }).fill("Acme")
          await page.getByRole("button", { name: "Create" }).click()
          await page.getByLabel("Environment name", { exact: true }).fill("production")
          await page.getByRole("button", { name: "Create" }).click()
          await page.getByRole("heading", { name: "Overview · production" }).waitFor()
        })

        // A trigger: the browser refuses bad JSON before sending; the server's 400 lands beside its field.
        yield* Effect.promise(async () => {
          await nav(page, "Triggers")
          await page.getByRole("link", { name: "New trigger" }).click()
          const form = page.getByRole("form", { name: "Create trigger" })
          await form.getByLabel("Name", { exact: true }).fill("nightly build")
          await form.getByLabel("Input (JSON)", { exact: true }).fill("{not json")
          await form.getByLabel("Webhook URL", { exact: true }).fill("ftp://example.com/hook")
          await form.getByLabel("Time-out (seconds)", { exact: true }).fill("0")
          await form.getByRole("button", { name: "Create trigger" }).click()
          await expect.poll(() => fieldOf(form, "Input (JSON)").locator(".field-error").textContent(), { timeout: 30_000 }).toMatch(/not valid JSON/)

          await form.getByLabel("Input (JSON)", { exact: true }).fill(JSON.stringify({ command: "make" }))
          await form.getByRole("button", { name: "Create trigger" }).click()
          const urlError = fieldOf(form, "Webhook URL").locator(".field-error")
          await expect.poll(() => urlError.textContent(), { timeout: 30_000 }).toBe("webhookUrl must be an absolute http(s) URL")
          expect(await form.getByLabel("Webhook URL", { exact: true }).getAttribute("aria-invalid")).toBe("true")
          expect(await fieldOf(form, "Time-out (seconds)").locator(".field-error").textContent()).toBe("timeoutSeconds must be an integer from 1 to 86400")
          expect(await fieldOf(form, "Input (JSON)").locator(".field-error").textContent()).toBe("")
          expect(await form.getByRole("alert").textContent()).toMatch(/correct the marked fields/)
          await screenshot(page, "trigger-form-errors")

          await form.getByLabel("Webhook URL", { exact: true }).fill(hook.url)
          await form.getByLabel("Time-out (seconds)", { exact: true }).fill("60")
          await form.getByRole("button", { name: "Create trigger" }).click()
          await page.getByRole("heading", { name: "Trigger · nightly build" }).waitFor()
        })

        // A worker: the workers page makes a one-time registration token and shows the command.
        const command = yield* Effect.promise(async () => {
          await nav(page, "Workers")
          await page.getByRole("button", { name: "Create a registration token" }).click()
          const shown = await page.getByLabel("Worker start command", { exact: true }).inputValue()
          // The token in the environment, never an argument (`ps` shows arguments to every user).
          expect(shown).toMatch(/^PIPELINE_REGISTRATION_TOKEN=wrk_\S+ pipeline-worker --url http:\/\/127\.0\.0\.1:\d+ --label my-worker$/)
          expect(await page.getByLabel("Worker install command", { exact: true }).textContent()).toBe("npm install -g ./pipeline-trigger-worker-*.tgz")
          expect(await page.getByText("Shown once.").isVisible()).toBe(true)
          return shown
        })
        const registrationToken = command.match(/^PIPELINE_REGISTRATION_TOKEN=(\S+)/)![1]!
        const release = yield* Deferred.make<void>()
        const gate = yield* Deferred.make<void>()
        const worker = yield* runWorker({
          baseUrl: url,
          registrationToken,
          label: "browser-test-worker",
          pollWaitSeconds: 1,
          handler: (run) => {
            const input = run.input as { hold?: boolean; gate?: boolean; forever?: boolean; n?: number; failOnce?: boolean } | null
            if (input?.failOnce === true && run.attempt === 1) return Effect.succeed({ status: "failed" as const, stderr: "flaky step" })
            // `forever` waits until the SDK interrupts it (a cancel request).
            if (input?.forever === true) return Effect.never
            return (input?.hold === true ? Deferred.await(release) : input?.gate === true ? Deferred.await(gate) : Effect.void).pipe(
              Effect.as({ status: "succeeded" as const, stdout: `built #${input?.n ?? 0}`, costUsd: "0.0125" })
            )
          }
        }).pipe(Effect.provide(fetchLayer), Effect.forkScoped)

        yield* Effect.promise(async () => {
          await page.reload()
          const row = page.getByRole("row").filter({ hasText: "browser-test-worker" })
          await row.waitFor()
          expect(await row.textContent()).toContain("online")
          await row.getByRole("button", { name: "Rename browser-test-worker" }).click()
          await page.getByRole("form", { name: "Rename worker browser-test-worker" }).getByLabel("Label", { exact: true }).fill("build box")
          await page.getByRole("button", { name: "Save" }).click()
          await page.getByRole("row").filter({ hasText: "build box" }).waitFor()
          await page.getByRole("button", { name: "Drain build box" }).click()
          await expect.poll(() => page.getByRole("row").filter({ hasText: "build box" }).textContent(), { timeout: 30_000 }).toContain("draining")
          await page.getByRole("button", { name: "Undrain build box" }).click()
          await expect.poll(() => page.getByRole("row").filter({ hasText: "build box" }).textContent(), { timeout: 30_000 }).toContain("online")
          await screenshot(page, "workers")
        })

        // Run now: bad JSON is refused in the browser; then the run goes live to succeeded on the runs page.
        yield* Effect.promise(async () => {
          await nav(page, "Triggers")
          await page.getByRole("link", { name: "nightly build" }).click()
          const runNow = page.getByRole("form", { name: "Run now" })
          await runNow.getByLabel(/Input/).fill("[1, 2")
          await runNow.getByRole("button", { name: "Run now" }).click()
          await expect.poll(() => fieldOf(runNow, /Input/).locator(".field-error").textContent(), { timeout: 30_000 }).toMatch(/not valid JSON/)

          const triggerUrl = page.url()

          // The runs page, open and empty, while a second tab (same session) uses Run now: the run appears on
          // top and changes status in place, from the event stream, without a reload.
          await nav(page, "Runs")
          await page.getByRole("heading", { name: "Runs" }).waitFor()
          expect(await page.getByText("No runs match these filters.").isVisible()).toBe(true)
          expect(await page.getByLabel("Status", { exact: true }).locator("option").allTextContents()).toContain("cancelled")
          await expect.poll(() => page.locator(".hint[data-live]").getAttribute("data-live"), { timeout: 30_000 }).toBe("live")
          // A navigation or reload would lose this.
          await page.evaluate("window.ptsMarker = 'still here'")
          const other = await context.newPage()
          other.setDefaultTimeout(60_000)
          other.on("pageerror", (error) => errors.push(error.message))
          await other.goto(triggerUrl)
          const otherRunNow = other.getByRole("form", { name: "Run now" })
          await otherRunNow.getByLabel(/Input/).fill(JSON.stringify({ n: 7, gate: true }))
          await otherRunNow.getByRole("button", { name: "Run now" }).click()
          await other.getByRole("link", { name: "Open the run" }).waitFor()
          await other.close()

          const row = page.locator("tr[data-run]").first()
          await expect.poll(() => row.getAttribute("data-status"), { timeout: 60_000 }).toBe("running")
          await expect.poll(() => page.getByText("No runs match these filters.").count(), { timeout: 30_000 }).toBe(0)
          // Marks this very element: if the table were redrawn, the mark would be gone.
          await row.evaluate((tr) => tr.setAttribute("data-mark", "first seen running"))
          await Effect.runPromise(Deferred.succeed(gate, undefined))
          await expect.poll(() => row.getAttribute("data-status"), { timeout: 60_000 }).toBe("succeeded")
          expect(await page.locator("tr[data-mark]").getAttribute("data-status")).toBe("succeeded")
          expect(await page.locator("tr[data-run]").count()).toBe(1)
          expect(await page.evaluate<string>("window.ptsMarker")).toBe("still here")
          expect(await row.textContent()).toContain("nightly build")
          expect(await row.textContent()).toContain("build box")
          expect(await row.textContent()).toContain("$0.0125")
          await screenshot(page, "runs")

          // Filters: failed shows nothing, succeeded shows the run.
          await page.getByLabel("Status", { exact: true }).selectOption("failed")
          await page.getByRole("button", { name: "Apply filters" }).click()
          await page.getByText("No runs match these filters.").waitFor()
          await page.getByLabel("Status", { exact: true }).selectOption("succeeded")
          await page.getByRole("button", { name: "Apply filters" }).click()
          await page.locator("tr[data-run]").first().waitFor()

          // The run page: output, cost, the webhook delivery with its status code.
          await page.locator("tr[data-run] a").first().click()
          await page.getByRole("heading", { name: /Run …\w+ · nightly build/ }).waitFor()
          expect(await page.locator(".run-status").textContent()).toContain("succeeded")
          expect(await page.getByLabel("Short message", { exact: true }).textContent()).toBe("built #7")
          expect(await page.getByLabel("Input", { exact: true }).textContent()).toContain("\"n\": 7")
          const steps = await page.getByRole("list", { name: "Timeline" }).getByRole("listitem").allTextContents()
          expect(steps.map((step) => step.match(/(requested|assigned|claimed|started|completed)/)?.[1])).toEqual(
            expect.arrayContaining(["requested", "completed"]))
          expect(steps.at(-1)).toContain("succeeded")
          const delivery = page.getByRole("row").filter({ hasText: "delivered" })
          await delivery.waitFor({ timeout: 60_000 })
          expect(await delivery.textContent()).toContain("200")
          await screenshot(page, "run")

          // Redeliver: a second, manual delivery of the same run.
          await page.getByRole("button", { name: "Redeliver webhook" }).click()
          await page.getByRole("row").filter({ hasText: "manual" }).waitFor({ timeout: 60_000 })
        })
        expect(hook.hits.length).toBe(2)
        expect(hook.hits[1]).toBe(hook.hits[0])

        // The overview: the figures, queue depth and running runs, refreshed in place.
        yield* Effect.promise(async () => {
          await nav(page, "Overview")
          const figure = (key: string) => page.locator(`[data-figure="${key}"]`)
          await figure("todaysRuns").waitFor()
          expect(await figure("onlineWorkers").textContent()).toBe("1")
          expect(await figure("queued").textContent()).toBe("0")
          expect(await figure("running").textContent()).toBe("0")
          expect(await figure("todaysRuns").textContent()).toBe("1")
          expect(await figure("successRate").textContent()).toBe("100%")
          expect(await figure("spend").textContent()).toBe("$0.0125")
          // The last 24 hours as charts, and the same numbers as a table.
          expect(await page.getByRole("img", { name: /Runs ended per hour/ }).locator("rect").count()).toBe(1)
          expect(await page.getByRole("img", { name: /duration p50 and p95/ }).locator("circle, polyline").count()).toBeGreaterThan(0)
          await page.getByText("The numbers as a table").click()
          const hour = page.getByRole("table", { name: "Runs per hour, last 24 hours" }).locator("tbody tr")
          expect(await hour.count()).toBe(1)
          expect(await hour.locator("td").allTextContents()).toEqual(expect.arrayContaining(["1"]))
          expect((await hour.locator("td").allTextContents()).slice(1, 6)).toEqual(["1", "1", "0", "0", "0"])
          await screenshot(page, "overview")
        })

        // Edit the trigger (one automatic retry); a run that fails once is retried, and the run pages link both ways.
        yield* Effect.promise(async () => {
          await nav(page, "Triggers")
          await page.getByRole("link", { name: "nightly build" }).click()
          const edit = page.getByRole("form", { name: "Edit trigger" })
          await edit.getByLabel("Automatic retries", { exact: true }).fill("11")
          // A schedule (29 February: it will not fire during the test) in a zone that does not exist.
          await edit.getByLabel("Cron expression", { exact: true }).fill("0 0 29 2 *")
          await edit.getByLabel("Time zone", { exact: true }).fill("Mars/Olympus")
          await edit.getByRole("button", { name: "Save changes" }).click()
          await expect.poll(() => fieldOf(edit, "Automatic retries").locator(".field-error").textContent(), { timeout: 30_000 }).toBe("maxRetries must be an integer from 0 to 10")
          expect(await fieldOf(edit, "Time zone").locator(".field-error").textContent()).toMatch(/^timezone must be an IANA time zone name/)
          expect(await edit.getByLabel("Time zone", { exact: true }).getAttribute("aria-invalid")).toBe("true")
          expect(await fieldOf(edit, "Cron expression").locator(".field-error").textContent()).toBe("")
          await edit.getByLabel("Automatic retries", { exact: true }).fill("1")
          await edit.getByLabel("Time zone", { exact: true }).fill("Europe/Berlin")
          await edit.getByRole("button", { name: "Save changes" }).click()
          await page.getByText("Trigger \"nightly build\" saved.").waitFor()
          // The message comes first; the page is then read again and drawn anew.
          await expect.poll(() => page.locator(".facts").textContent(), { timeout: 30_000 }).toContain("Automatic retries1")
          expect(await page.locator(".facts").textContent()).toContain("Schedule0 0 29 2 * (Europe/Berlin)")
          // The next tick: midnight in Berlin on 29 February, as the server computed it.
          const nextRun = page.locator(".facts dt", { hasText: "Next run" }).locator("xpath=following-sibling::dd[1]")
          expect(await nextRun.locator("time").getAttribute("datetime")).toMatch(/^\d{4}-02-28T23:00:00\.000Z$/)
          // The browser runs in UTC: the tick is also shown in the schedule's own zone.
          expect(await nextRun.textContent()).toMatch(/\(\d{4}-02-29 00:00 Europe\/Berlin\)$/)

          await page.getByRole("form", { name: "Run now" }).getByLabel(/Input/).fill(JSON.stringify({ failOnce: true }))
          await page.getByRole("form", { name: "Run now" }).getByRole("button", { name: "Run now" }).click()
          await page.getByRole("link", { name: "Open the run" }).click()
          await page.getByRole("heading", { name: /^Run …\w+ · nightly build$/ }).waitFor()
          const retriedBy = page.locator(".facts dd").nth(5).getByRole("link")
          await retriedBy.waitFor({ timeout: 60_000 })
          expect(await page.locator(".run-status").textContent()).toContain("failed")
          expect(await page.getByLabel("Error message", { exact: true }).textContent()).toBe("flaky step")
          const firstUrl = page.url()
          await retriedBy.click()
          await expect.poll(() => page.locator(".run-status").textContent(), { timeout: 60_000 }).toContain("succeeded")
          expect(await page.locator(".facts").textContent()).toContain("Attempt2")
          await page.locator(".facts dd").nth(4).getByRole("link").click()
          await expect.poll(() => page.url(), { timeout: 30_000 }).toBe(firstUrl)
        })

        // Delete while a run is active: the 409 is said plainly; once the run ends the page moves on.
        yield* Effect.promise(async () => {
          await nav(page, "Triggers")
          // The list shows the schedule and its next tick.
          const listed = page.getByRole("row").filter({ hasText: "nightly build" })
          expect(await listed.textContent()).toContain("0 0 29 2 * (Europe/Berlin)")
          expect(await listed.locator("time").first().getAttribute("datetime")).toMatch(/^\d{4}-02-28T23:00:00\.000Z$/)
          await page.getByRole("link", { name: "nightly build" }).click()
          await page.getByRole("form", { name: "Run now" }).getByLabel(/Input/).fill(JSON.stringify({ hold: true }))
          await page.getByRole("form", { name: "Run now" }).getByRole("button", { name: "Run now" }).click()
          await page.getByRole("link", { name: "Open the run" }).waitFor()
          await page.getByRole("button", { name: "Rotate MCP token" }).click()
          await page.getByRole("dialog").getByRole("button", { name: "Rotate" }).click()
          expect(await page.getByRole("textbox", { name: "New MCP token" }).inputValue()).toMatch(/^mcp_/)
          await page.getByRole("button", { name: "Delete trigger" }).click()
          await page.getByRole("dialog").getByRole("button", { name: "Delete trigger" }).click()
          await page.getByText(/Not deleted: trigger has active runs/).waitFor()
          await screenshot(page, "trigger")
        })
        yield* Deferred.succeed(release, undefined)

        // Cancel a long run from its page: the worker's handler waits until it is interrupted; the page shows the
        // run end cancelled, live; the status filter finds it.
        yield* Effect.promise(async () => {
          await nav(page, "Triggers")
          await page.getByRole("link", { name: "nightly build" }).click()
          await page.getByRole("form", { name: "Run now" }).getByLabel(/Input/).fill(JSON.stringify({ forever: true }))
          await page.getByRole("form", { name: "Run now" }).getByRole("button", { name: "Run now" }).click()
          await page.getByRole("link", { name: "Open the run" }).click()
          await expect.poll(() => page.locator(".run-status").textContent(), { timeout: 60_000 }).toContain("running")
          await page.evaluate("window.ptsMarker = 'run page'")
          await page.getByRole("button", { name: "Cancel run" }).click()
          const dialog = page.getByRole("dialog", { name: "Cancel this run?" })
          await dialog.getByRole("button", { name: "Cancel run" }).click()
          await expect.poll(() => page.locator(".run-status").textContent(), { timeout: 60_000 }).toContain("cancelled")
          expect(await page.getByRole("status").filter({ hasText: /Cancel requested|Run cancelled/ }).count()).toBe(1)
          await expect.poll(() => page.getByRole("button", { name: "Cancel run" }).count(), { timeout: 30_000 }).toBe(0)
          expect(await page.getByLabel("Error message", { exact: true }).textContent()).toBe("cancelled: the handler was interrupted")
          const steps = await page.getByRole("list", { name: "Timeline" }).getByRole("listitem").allTextContents()
          expect(steps.at(-1)).toMatch(/cancelled/)
          expect(await page.evaluate<string>("window.ptsMarker")).toBe("run page")
          await screenshot(page, "run-cancelled")

          await nav(page, "Runs")
          await page.getByLabel("Status", { exact: true }).selectOption("cancelled")
          await page.getByRole("button", { name: "Apply filters" }).click()
          await expect.poll(() => page.locator("tr[data-run]").count(), { timeout: 30_000 }).toBe(1)
          expect(await page.locator("tr[data-run]").getAttribute("data-status")).toBe("cancelled")
        })

        // Members: the viewer registers; the owner adds them; the last owner cannot demote themself.
        yield* Effect.promise(async () => {
          const res = await fetch(`${url}/api/v1/auth/register`, {
            method: "POST",
            headers: { "content-type": "application/json" },
            body: JSON.stringify({ email: viewer, password })
          })
          expect(res.status).toBe(201)
          await nav(page, "Members")
          const add = page.getByRole("form", { name: "Add a member" })
          await add.getByLabel("Email", { exact: true }).fill("nobody@example.com")
          await add.getByRole("button", { name: "Add member" }).click()
          await expect.poll(() => fieldOf(add, "Email").locator(".field-error").textContent(), { timeout: 30_000 }).toMatch(/register first/)
          await add.getByLabel("Email", { exact: true }).fill(viewer)
          await add.getByLabel("Role", { exact: true }).selectOption("operator")
          await add.getByRole("button", { name: "Add member" }).click()
          await page.getByRole("row").filter({ hasText: viewer }).waitFor()
          await page.getByLabel(`Role of ${owner}`, { exact: true }).selectOption("admin")
          await page.getByText(/an environment must keep at least one owner/).waitFor()
          expect(await page.getByLabel(`Role of ${owner}`, { exact: true }).inputValue()).toBe("owner")
          await screenshot(page, "members")
        })

        // API keys: the token is shown once; deleting it removes the row. An admin key is kept for later.
        const adminKey = yield* Effect.promise(async () => {
          await nav(page, "API keys")
          const create = page.getByRole("form", { name: "Create a key" })
          await create.getByLabel("Name", { exact: true }).fill("deploy script")
          await create.getByLabel("Role", { exact: true }).selectOption("viewer")
          await create.getByRole("button", { name: "Create" }).click()
          const token = await page.getByLabel("Token of \"deploy script\"", { exact: true }).inputValue()
          expect(token).toMatch(/^pwk_/)
          await screenshot(page, "keys")
          const check = await fetch(`${url}/api/v1/environments/x/runs`, { headers: { authorization: `Bearer ${token}` } })
          expect(check.status).toBe(404)
          await page.getByRole("button", { name: "Delete deploy script" }).click()
          await page.getByRole("dialog").getByRole("button", { name: "Delete" }).click()
          await page.getByText("\"deploy script\" deleted.").waitFor()
          // The message comes first; the list is then read again and drawn anew.
          await expect.poll(() => page.getByRole("row").filter({ hasText: "deploy script" }).count(), { timeout: 30_000 }).toBe(0)

          await create.getByLabel("Name", { exact: true }).fill("admin script")
          await create.getByLabel("Role", { exact: true }).selectOption("admin")
          await create.getByRole("button", { name: "Create" }).click()
          return await page.getByLabel("Token of \"admin script\"", { exact: true }).inputValue()
        })

        // The audit log, filtered by action.
        yield* Effect.promise(async () => {
          await nav(page, "Audit log")
          await page.getByRole("row").filter({ hasText: "api_key.deleted" }).waitFor()
          await page.getByLabel("Action", { exact: true }).selectOption("trigger.created")
          await page.getByRole("button", { name: "Apply filters" }).click()
          await expect.poll(() => page.locator("tbody tr").count(), { timeout: 30_000 }).toBe(1)
          expect(await page.locator("tbody tr").textContent()).toContain(owner)
          await page.getByLabel("Action", { exact: true }).selectOption("")
          await page.getByRole("button", { name: "Apply filters" }).click()
          await page.getByRole("row").filter({ hasText: "member.added" }).waitFor()
          await screenshot(page, "audit")

          // Revoke the worker (confirmed): it stays listed as revoked, with nothing left to do.
          await nav(page, "Workers")
          await page.getByRole("button", { name: "Revoke build box" }).click()
          await page.getByRole("dialog").getByRole("button", { name: "Revoke" }).click()
          await expect.poll(() => page.getByRole("row").filter({ hasText: "build box" }).textContent(), { timeout: 30_000 }).toContain("revoked")
          await expect.poll(() => page.getByRole("button", { name: "Drain build box" }).count(), { timeout: 30_000 }).toBe(0)
          await nav(page, "Audit log")
          await page.getByRole("row").filter({ hasText: "worker.revoked" }).waitFor()
        })

        // The second member's session: an operator may run a trigger but not change it.
        yield* Effect.promise(async () => {
          const envId = await page.evaluate<string>("localStorage.getItem('pts.environment')")
          await page.getByRole("button", { name: "Sign out" }).click()
          const signIn = page.getByRole("form", { name: "Sign in" })
          await signIn.getByLabel("Email", { exact: true }).fill(viewer)
          await signIn.getByLabel("Password", { exact: true }).fill(password)
          await signIn.getByRole("button", { name: "Sign in" }).click()
          // Back on the page the owner left (the audit log): above this role, so a message, not a broken page.
          await page.getByRole("alert").filter({ hasText: "Your role here is operator; the audit log needs admin or higher." }).waitFor()
          await nav(page, "Triggers")
          await page.getByRole("link", { name: "nightly build" }).click()
          await page.getByRole("heading", { name: "Trigger · nightly build" }).waitFor()
          expect(await page.locator("main button").allTextContents()).toEqual(["Run now"])
          // No worker is online now: the run waits queued, and an operator is offered Cancel on its page.
          await page.getByRole("form", { name: "Run now" }).getByRole("button", { name: "Run now" }).click()
          await page.getByRole("link", { name: "Open the run" }).click()
          await expect.poll(() => page.locator(".run-status").textContent(), { timeout: 30_000 }).toContain("queued")
          // Besides the log's own (Follow, Download), which only read; Replay's
          // input editor stays folded (its buttons hidden) until asked for.
          expect(await page.locator("main button:visible:not(.run-log button)").allTextContents())
            .toEqual(["Cancel run", "Replay", "Replay with edited input"])
          expect(await page.locator(".run-log button").allTextContents()).toEqual(["Follow", "Download"])
          await page.goBack()
          await page.getByRole("heading", { name: "Trigger · nightly build" }).waitFor()

          // Demoted to viewer meanwhile (by the admin key): the server's 403 is a sentence in the form; the page stays.
          const auth = { authorization: `Bearer ${adminKey}`, "content-type": "application/json" }
          const listed = await (await fetch(`${url}/api/v1/environments/${envId}/members`, { headers: auth })).json() as { items: Array<{ userId: string; email: string }> }
          const member = listed.items.find((m) => m.email === viewer)!
          const demoted = await fetch(`${url}/api/v1/environments/${envId}/members/${member.userId}`, {
            method: "PATCH", headers: auth, body: JSON.stringify({ role: "viewer" })
          })
          expect(demoted.status).toBe(200)
          await page.getByRole("form", { name: "Run now" }).getByRole("button", { name: "Run now" }).click()
          await page.getByRole("form", { name: "Run now" }).getByRole("alert").filter({ hasText: "You do not have permission to do this in this environment." }).waitFor()
          expect(await page.getByRole("heading", { name: "Trigger · nightly build" }).isVisible()).toBe(true)
        })

        // The viewer's session: nothing they may not do is offered.
        yield* Effect.promise(async () => {
          await page.reload()
          await page.getByRole("heading", { name: "Trigger · nightly build" }).waitFor()
          expect(await page.locator("#account").textContent()).toContain("Role: viewer")
          await nav(page, "Overview")
          await page.getByRole("heading", { name: "Overview · production" }).waitFor()
          expect(await page.getByRole("navigation", { name: "Pages" }).getByRole("link", { name: "Audit log" }).count()).toBe(0)
          await nav(page, "Triggers")
          await page.getByRole("link", { name: "nightly build" }).waitFor()
          expect(await page.getByRole("link", { name: "New trigger" }).count()).toBe(0)
          await page.getByRole("link", { name: "nightly build" }).click()
          await page.getByRole("heading", { name: "Trigger · nightly build" }).waitFor()
          const viewerButtons = await page.locator("main button").count()
          expect(viewerButtons).toBe(0)
          await nav(page, "Workers")
          await page.getByRole("row").filter({ hasText: "build box" }).waitFor()
          expect(await page.locator("main button").count()).toBe(0)
          await nav(page, "Members")
          await page.getByRole("row").filter({ hasText: owner }).waitFor()
          expect(await page.locator("main button, main select").count()).toBe(0)
          await nav(page, "API keys")
          await page.getByText("Keys are created and deleted by admins").waitFor()
          expect(await page.locator("main button").count()).toBe(0)
          await nav(page, "Runs")
          await page.locator("tr[data-run]").first().waitFor()
          await page.locator("tr[data-run] a").first().click()
          // The operator's queued run: not ended, yet no Cancel for a viewer (the log's Follow and Download only read).
          await expect.poll(() => page.locator(".run-status").textContent(), { timeout: 30_000 }).toContain("queued")
          expect(await page.locator("main button:not(.run-log button)").count()).toBe(0)
        })
        yield* Fiber.interrupt(worker)
        expect(errors).toEqual([])
      }), 240_000)
  })
})
