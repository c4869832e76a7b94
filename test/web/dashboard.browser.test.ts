import { describe, expect, layer as withLayer } from "@effect/vitest"
import * as Effect from "effect/Effect"
import type { Page } from "playwright-core"
import { browser, screenshot, serviceLayer, ServiceUrl } from "../support/Browser.js"

/** One API call from inside the page: the session cookie and the Origin the browser sends, as the dashboard's own calls. */
const inPage = (page: Page, method: string, path: string, body?: unknown) =>
  page.evaluate(async ({ method, path, body }) => {
    const res = await fetch(`/api/v1${path}`, {
      method,
      headers: body === undefined ? {} : { "content-type": "application/json" },
      body: body === undefined ? undefined : JSON.stringify(body)
    })
    return { status: res.status, body: await res.json() as any }
  }, { method, path, body })

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
        const page = yield* Effect.promise(() => context.newPage())
        page.setDefaultTimeout(60_000)
        const errors: Array<string> = []
        page.on("pageerror", (error) => errors.push(error.message))
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
})
