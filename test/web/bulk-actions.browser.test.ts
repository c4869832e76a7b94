import { describe, expect, layer as withLayer } from "@effect/vitest"
import * as Effect from "effect/Effect"
import { browser, inPage, openPage, screenshot, serviceLayer, ServiceUrl } from "../support/Browser.js"

withLayer(serviceLayer, { excludeTestServices: true, timeout: 180_000 })("bulk actions and replay in a real browser", (it) => {
  describe("runs page and run page", () => {
    it.scoped("filter by tag, select two runs and cancel them, then all N matching a filter replayed with live progress; Replay with edited input", () =>
      Effect.gen(function*() {
        const url = yield* ServiceUrl
        const context = yield* browser
        const { page, errors } = yield* openPage(context)
        yield* Effect.promise(async () => {
          await page.goto(url)
          await page.getByRole("heading", { name: "Sign in", level: 1 }).waitFor()
          expect((await inPage(page, "POST", "/auth/register", { email: `bulk-${Date.now()}@example.com`, password: "correct horse battery" })).status).toBe(201)
          const ws = await inPage(page, "POST", "/workspaces", { name: "Bulk" })
          const env = await inPage(page, "POST", `/workspaces/${ws.body.id}/environments`, { name: "ops" })
          const trigger = await inPage(page, "POST", `/environments/${env.body.id}/triggers`, { name: "deploy" })
          expect(trigger.status).toBe(201)
          // No worker here: the runs stay queued until cancelled.
          const ids: Array<string> = []
          for (let i = 0; i < 6; i++) {
            const run = await inPage(page, "POST", `/triggers/${trigger.body.id}/run`, { input: { n: i }, tags: [i < 4 ? "bad-deploy" : "other"] })
            expect(run.status).toBe(201)
            ids.push(run.body.id)
          }

          await page.goto(`${url}/#/runs?tag=bad-deploy`)
          await page.reload()
          await page.getByRole("heading", { name: "Runs" }).waitFor()
          await expect.poll(() => page.locator("tr[data-run]").count()).toBe(4)
          expect(await page.getByLabel("Tag").inputValue()).toBe("bad-deploy")

          // Two runs ticked: cancelled, confirmed with their count.
          await page.getByLabel(`Select run ${ids[0]}`).check()
          await page.getByLabel(`Select run ${ids[1]}`).check()
          await page.getByText("2 selected").waitFor()
          await page.getByRole("button", { name: "Cancel runs" }).click()
          const confirm = page.getByRole("dialog", { name: "Cancel 2 runs?" })
          await confirm.waitFor()
          await confirm.getByRole("button", { name: "Cancel 2" }).click()
          await page.getByText(/Cancel: 2 of 2 done · completed/).waitFor()
          await expect.poll(() => page.locator("tr[data-run] .badge-cancelled").count()).toBe(2)

          // All runs matching the filter (tag bad-deploy, status queued): replayed, confirmed with the count.
          await page.goto(`${url}/#/runs?tag=bad-deploy&status=queued`)
          await expect.poll(() => page.locator("tr[data-run]").count()).toBe(2)
          await page.getByLabel("All runs matching these filters").check()
          await page.getByRole("button", { name: "Replay runs" }).click()
          const replayAll = page.getByRole("dialog", { name: "Replay 2 runs?" })
          await replayAll.waitFor()
          await screenshot(page, "bulk-replay-confirm")
          await replayAll.getByRole("button", { name: "Replay 2" }).click()
          await page.getByText(/Replay: 2 of 2 done · completed/).waitFor()
          const replays = await inPage(page, "GET", `/environments/${env.body.id}/runs?tag=bad-deploy&limit=200`)
          expect(replays.body.items.filter((r: any) => r.replayOfRunId !== null).map((r: any) => r.replayOfRunId).sort())
            .toEqual([ids[2], ids[3]].sort())

          // The run page: Replay with an edited input opens the new run, linked to this one.
          await page.goto(`${url}/#/runs/${ids[4]}`)
          await page.getByRole("button", { name: "Replay with edited input" }).click()
          await page.getByLabel("Input of the replay").fill("{\"n\": 42}")
          await page.getByRole("button", { name: "Replay with this input" }).click()
          await page.getByText("Replay of").waitFor()
          await expect.poll(() => page.url()).not.toContain(ids[4]!)
          const newId = page.url().split("/").pop()!
          const replayed = await inPage(page, "GET", `/runs/${newId}`)
          expect(replayed.body).toMatchObject({ replayOfRunId: ids[4], input: { n: 42 }, tags: ["other"] })
          await screenshot(page, "run-replayed")
        })
        expect(errors).toEqual([])
      }), 180_000)
  })
})
