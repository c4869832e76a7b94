import { expect, layer as withLayer } from "@effect/vitest"
import * as Effect from "effect/Effect"
import { verify } from "../../src/Webhooks/Signer.js"
import { createTrigger, setupEnvironment } from "../support/Fixtures.js"
import { call, layer } from "../support/TestApp.js"
import { parse, value } from "../observability/exposition.js"
import { eventually, receiver } from "../webhooks/support.js"

const secret = "expiry-end-to-end-secret-0123"

const scrape = Effect.map(call("GET", "/metrics"), (res) => parse(res.body as string))

// Real time: the subject is the due loop ending a run at its stored deadline
// and everything an end sets off (the timeline, the webhook, the metrics).
withLayer(layer({ webhookAllowPrivateNetworks: true }), { excludeTestServices: true })("a run nobody claims expires", (it) => {
  it.scoped("ends expired at its time-to-live: GET /runs/{id}, one signed webhook with status expired, pts_runs_total and pts_runs_ended_total", () =>
    Effect.gen(function*() {
      const rx = yield* receiver
      const env = yield* setupEnvironment()
      // No worker: nothing can claim it.
      const trigger = yield* createTrigger(env, { ttlSeconds: 1, maxRetries: 2, webhookUrl: rx.url("/expired"), webhookSecret: secret })
      const labels = { environment: env.environmentId, status: "expired" }
      const before = yield* scrape
      const created = yield* call("POST", `/api/v1/triggers/${trigger.id}/run`, { cookie: env.user.cookie })
      expect(created.status).toBe(201)
      const runId = created.body.id as string
      const run = yield* eventually(
        "the run to expire",
        Effect.map(call("GET", `/api/v1/runs/${runId}`, { cookie: env.user.cookie }), (res) => res.body),
        (body) => body.status === "expired"
      )
      expect(run).toMatchObject({ status: "expired", workerId: null, waitReason: null })
      expect(Date.parse(run.endedAt)).toBeGreaterThanOrEqual(Date.parse(run.createdAt) + 1000)
      // An expiry is not retried, whatever maxRetries says.
      const listed = yield* call("GET", `/api/v1/triggers/${trigger.id}/runs`, { cookie: env.user.cookie })
      expect(listed.body.items.map((r: { id: string }) => r.id)).toEqual([runId])
      // One signed delivery, like any end.
      const [req] = yield* eventually("the webhook", Effect.sync(() => rx.received("/expired")), (got) => got.length > 0)
      expect(verify(secret, req!.raw, req!.headers["x-service-signature"] as string)).toBe(true)
      expect(JSON.parse(req!.raw.toString("utf8"))).toMatchObject({ runId, triggerId: trigger.id, status: "expired" })
      const after = yield* scrape
      expect(value(after, "pts_runs_total", labels) - value(before, "pts_runs_total", labels)).toBe(1)
      expect(value(after, "pts_runs_ended_total", labels) - value(before, "pts_runs_ended_total", labels)).toBe(1)
      expect(rx.received("/expired")).toHaveLength(1)
    }))
})
