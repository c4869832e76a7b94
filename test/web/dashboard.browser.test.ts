import { describe, expect, layer as withLayer } from "@effect/vitest"
import * as Effect from "effect/Effect"
import { browser, screenshot, serviceLayer, ServiceUrl } from "../support/Browser.js"

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
})
