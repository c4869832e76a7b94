import { describe, expect, layer as withLayer } from "@effect/vitest"
import * as Effect from "effect/Effect"
import { browser, inPage, openPage, screenshot, serviceLayer, ServiceUrl } from "../support/Browser.js"

// One browser and one page, driven step by step: the steps share the session like a person would.
withLayer(serviceLayer, { excludeTestServices: true, timeout: 180_000 })("dashboard in a real browser", (it) => {
  describe("sign in, workspace, environment, overview", () => {
    it.scoped("a new user reaches the overview; the choice is remembered; sign out and back in", () =>
      Effect.gen(function*() {
        const url = yield* ServiceUrl
        const context = yield* browser
        const page = yield* Effect.promise(() => context.newPage())
        const email = `ui-${Date.now()}@example.com`
        yield* Effect.promise(async () => {
          const errors: Array<string> = []
          page.on("pageerror", (error) => errors.push(error.message))
          page.on("console", (message) => message.type() === "error" && errors.push(message.text()))
          await page.goto(url)
          await page.getByRole("heading", { name: "Sign in", level: 1 }).waitFor()
          await screenshot(page, "sign-in")
          const register = page.getByRole("form", { name: "Register" })
          await register.getByLabel("Email").fill(email)
          await register.getByLabel(/Password/).fill("correct horse battery")
          await register.getByRole("button", { name: "Create account" }).click()

          await page.getByLabel("Workspace name").fill("Acme")
          await page.getByRole("button", { name: "Create" }).click()
          await page.getByLabel("Environment name").fill("production")
          await page.getByRole("button", { name: "Create" }).click()
          await page.getByRole("heading", { name: "Overview · production" }).waitFor()
          expect(await page.getByText("Online workers").isVisible()).toBe(true)
          expect(await page.getByText("no finished runs").isVisible()).toBe(true)
          await screenshot(page, "overview-new")

          await page.reload()
          await page.getByRole("heading", { name: "Overview · production" }).waitFor()
          expect(await page.getByLabel("Environment", { exact: true }).inputValue()).not.toBe("")

          await page.getByRole("button", { name: "Sign out" }).click()
          await page.getByRole("heading", { name: "Sign in", level: 1 }).waitFor()

          // The server's answer is shown in the form, as text.
          const again = page.getByRole("form", { name: "Register" })
          await again.getByLabel("Email").fill(email)
          await again.getByLabel(/Password/).fill("correct horse battery")
          await again.getByRole("button", { name: "Create account" }).click()
          await again.getByRole("alert").filter({ hasText: /./ }).waitFor()
          expect(await again.getByRole("alert").textContent()).toMatch(/already|taken|exists/i)

          const signIn = page.getByRole("form", { name: "Sign in" })
          await signIn.getByLabel("Email").fill(email)
          await signIn.getByLabel("Password").fill("correct horse battery")
          await signIn.getByRole("button", { name: "Sign in" }).click()
          await page.getByRole("heading", { name: "Overview · production" }).waitFor()
          expect(errors.filter((e) => !e.includes("401") && !e.includes("409"))).toEqual([])
        })
      }), 180_000)
  })

  describe("the live runs table under a burst of events", () => {
    it.scoped("120 runs requested at once and 40 of them cancelled: the first page ends up as the API lists it, without a reload", () =>
      Effect.gen(function*() {
        const url = yield* ServiceUrl
        const context = yield* browser
        const { page, errors } = yield* openPage(context)
        yield* Effect.promise(async () => {
          await page.goto(url)
          await page.getByRole("heading", { name: "Sign in", level: 1 }).waitFor()
          expect((await inPage(page, "POST", "/auth/register", { email: `burst-${Date.now()}@example.com`, password: "correct horse battery" })).status).toBe(201)
          const ws = await inPage(page, "POST", "/workspaces", { name: "Burst" })
          expect(ws.status).toBe(201)
          const env = await inPage(page, "POST", `/workspaces/${ws.body.id}/environments`, { name: "load" })
          expect(env.status).toBe(201)
          const trigger = await inPage(page, "POST", `/environments/${env.body.id}/triggers`, { name: "burst" })
          expect(trigger.status).toBe(201)

          // Signed in behind the sign-in form's back: load the app again, on the runs page.
          await page.goto(`${url}/#/runs`)
          await page.reload()
          await page.getByRole("heading", { name: "Runs" }).waitFor()
          await expect.poll(() => page.locator(".hint[data-live]").getAttribute("data-live"), { timeout: 30_000 }).toBe("live")
          await page.evaluate("window.ptsMarker = 'no reload'")

          // No worker in this environment: the runs stay queued until cancelled.
          const requested = await page.evaluate(async (triggerId) => {
            const one = async () => (await fetch(`/api/v1/triggers/${triggerId}/run`, { method: "POST", headers: { "content-type": "application/json" }, body: "{}" })).json()
            return (await Promise.all(Array.from({ length: 120 }, one))) as Array<{ id: string }>
          }, trigger.body.id as string)
          expect(requested.length).toBe(120)
          // Every third run, old and new alike: some on the first page change in place, others are off it.
          const cancelled = await Promise.all(requested.filter((_, i) => i % 3 === 0).map((run) => inPage(page, "POST", `/runs/${run.id}/cancel`)))
          expect(cancelled.map((res) => res.body.status)).toEqual(Array(40).fill("cancelled"))

          const listed = await inPage(page, "GET", `/environments/${env.body.id}/runs?limit=50`)
          const expected = (listed.body.items as Array<{ id: string; status: string }>).map((run) => `${run.id} ${run.status}`)
          expect(new Set(expected.map((line) => line.split(" ")[1]))).toEqual(new Set(["queued", "cancelled"]))
          const shown = () => page.locator("tr[data-run]").evaluateAll((rows) => rows.map((tr) => `${tr.getAttribute("data-run")} ${tr.getAttribute("data-status")}`))
          await expect.poll(shown, { timeout: 60_000 }).toEqual(expected)
          expect(await page.locator("tr[data-run] .badge-cancelled").count()).toBe(expected.filter((line) => line.endsWith("cancelled")).length)
          expect(await page.evaluate<string>("window.ptsMarker")).toBe("no reload")
          await page.getByRole("link", { name: "Overview" }).click()
          await page.getByRole("heading", { name: "Overview · load" }).waitFor()
        })
        expect(errors).toEqual([])
      }), 180_000)
  })

  describe("what the forms and filters say and offer", () => {
    it.scoped("worded validation, a wrong password's own message, every audit action, no revoked worker to pin or rename", () =>
      Effect.gen(function*() {
        const url = yield* ServiceUrl
        const context = yield* browser
        const { page, errors } = yield* openPage(context)
        yield* Effect.promise(async () => {
          await page.goto(url)
          await page.getByRole("heading", { name: "Sign in", level: 1 }).waitFor()
          const email = `words-${Date.now()}@example.com`
          // A short password: the field says so in words, not with the schema's internals.
          const register = page.getByRole("form", { name: "Register" })
          await register.getByLabel("Email").fill(email)
          await register.getByLabel(/Password/).fill("short")
          await register.getByRole("button", { name: "Create account" }).click()
          const passwordError = register.locator(".field").filter({ has: page.getByLabel(/Password/) }).locator(".field-error")
          await expect.poll(() => passwordError.textContent(), { timeout: 30_000 }).toBe("password must be at least 8 characters")
          await register.getByLabel(/Password/).fill("correct horse battery")
          await register.getByRole("button", { name: "Create account" }).click()
          await page.getByLabel("Workspace name").waitFor()
          const ws = await inPage(page, "POST", "/workspaces", { name: "Words" })
          const env = await inPage(page, "POST", `/workspaces/${ws.body.id}/environments`, { name: "prod" })
          const worker = async (label: string) => {
            const token = await inPage(page, "POST", `/environments/${env.body.id}/api-keys`, { name: label, prefix: "wrk" })
            const registered = await inPage(page, "POST", "/workers/register", { registrationToken: token.body.token, label })
            expect(registered.status).toBe(201)
            return registered.body.worker.id as string
          }
          await worker("kept-worker")
          const gone = await worker("gone-worker")
          const revoked = await page.evaluate(async (path) => (await fetch(`/api/v1${path}`, { method: "DELETE" })).status, `/workspaces/${ws.body.id}/workers/${gone}`)
          expect(revoked).toBe(204)

          // A wrong password: the server's own answer, not "your session has ended".
          await page.getByRole("button", { name: "Sign out" }).click()
          const signIn = page.getByRole("form", { name: "Sign in" })
          await signIn.getByLabel("Email").fill(email)
          await signIn.getByLabel("Password").fill("not the password")
          await signIn.getByRole("button", { name: "Sign in" }).click()
          await signIn.getByRole("alert").filter({ hasText: /./ }).waitFor()
          expect(await signIn.getByRole("alert").textContent()).toBe("invalid email or password")
          await signIn.getByLabel("Password").fill("correct horse battery")
          await signIn.getByRole("button", { name: "Sign in" }).click()
          await page.getByRole("heading", { name: "Overview · prod" }).waitFor()

          await page.goto(`${url}/#/audit`)
          await page.getByRole("heading", { name: "Audit log" }).waitFor()
          const offered = await page.getByLabel("Action", { exact: true }).locator("option").allTextContents()
          expect(offered).toEqual(expect.arrayContaining(["run.cancelled", "worker.revoked", "worker.drain_changed", "webhook.redelivered"]))

          await page.goto(`${url}/#/workers`)
          await page.getByRole("button", { name: "Rename kept-worker" }).waitFor()
          expect(await page.getByRole("button", { name: "Rename gone-worker" }).count()).toBe(0)

          await page.goto(`${url}/#/triggers/new`)
          const pin = page.getByRole("form", { name: "Create trigger" }).getByLabel("Worker", { exact: true })
          await pin.waitFor()
          const pinnable = await pin.locator("option").allTextContents()
          expect(pinnable.some((text) => text.startsWith("kept-worker"))).toBe(true)
          expect(pinnable.some((text) => text.startsWith("gone-worker"))).toBe(false)
        })
        expect(errors).toEqual([])
      }), 180_000)

    it.scoped("a trigger's command and input schema in its form and page; Run now checks the input first and shows the server's 400 naming the path", () =>
      Effect.gen(function*() {
        const url = yield* ServiceUrl
        const context = yield* browser
        const { page, errors } = yield* openPage(context)
        const requested: Array<string> = []
        page.on("request", (request) => request.method() === "POST" && request.url().endsWith("/run") && requested.push(request.postData() ?? ""))
        yield* Effect.promise(async () => {
          await page.goto(url)
          const register = page.getByRole("form", { name: "Register" })
          await register.getByLabel("Email").fill(`typed-${Date.now()}@example.com`)
          await register.getByLabel(/Password/).fill("correct horse battery")
          await register.getByRole("button", { name: "Create account" }).click()
          await page.getByLabel("Workspace name").fill("Typed")
          await page.getByRole("button", { name: "Create" }).click()
          await page.getByLabel("Environment name").fill("prod")
          await page.getByRole("button", { name: "Create" }).click()
          await page.getByRole("heading", { name: "Overview · prod" }).waitFor()

          await page.goto(`${url}/#/triggers/new`)
          const form = page.getByRole("form", { name: "Create trigger" })
          await form.getByLabel("Name", { exact: true }).fill("typed build")
          await form.getByLabel("Command", { exact: true }).fill("make build")
          await form.getByLabel("Input schema (JSON Schema)", { exact: true }).fill(JSON.stringify({
            type: "object",
            required: ["ref"],
            properties: { ref: { type: "string", pattern: "^\\S+$" } }
          }))
          await form.getByRole("button", { name: "Create trigger" }).click()
          await page.getByRole("heading", { name: "Trigger · typed build" }).waitFor()
          expect(await page.locator("dl.facts").textContent()).toContain("make build")
          await page.getByRole("heading", { name: "Input schema" }).waitFor()

          const runNow = page.getByRole("form", { name: "Run now" })
          // The inner locator of `has` is matched inside each candidate: it starts from the page.
          const inputError = runNow.locator(".field").filter({ has: page.getByLabel(/Input/) }).locator(".field-error")
          // Caught in the browser: nothing is sent.
          await runNow.getByLabel(/Input/).fill(JSON.stringify({ count: 2 }))
          await runNow.getByRole("button", { name: "Run now" }).click()
          await expect.poll(() => inputError.textContent(), { timeout: 30_000 }).toBe("input.ref: is required")
          expect(requested).toEqual([])
          // Past the browser's small check (it does not test patterns): the server's 400 names the path.
          await runNow.getByLabel(/Input/).fill(JSON.stringify({ ref: "two words" }))
          await runNow.getByRole("button", { name: "Run now" }).click()
          await expect.poll(() => inputError.textContent(), { timeout: 30_000 }).toBe("input.ref: must match pattern \"^\\S+$\"")
          expect(requested).toHaveLength(1)
          await runNow.getByLabel(/Input/).fill(JSON.stringify({ ref: "main" }))
          await runNow.getByRole("button", { name: "Run now" }).click()
          await runNow.getByRole("link", { name: "Open the run" }).waitFor()
          await screenshot(page, "trigger-input-schema")
        })
        expect(errors).toEqual([])
      }), 180_000)
  })
})
