import * as SqlClient from "@effect/sql/SqlClient"
import { describe, expect, layer as withLayer } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import { uuidv7 } from "../../src/Crypto/Ids.js"
import { Retention } from "../../src/Retention/Retention.js"
import { layerWith as retentionWith } from "../../src/Retention/RetentionConfig.js"
import type { RunStatus } from "../../src/Contract/Domain/Run.js"
import { addEnvironment, createTrigger, insertRun, setupEnvironment } from "../support/Fixtures.js"
import { layer } from "../support/TestApp.js"

const day = 86_400_000
const daysAgo = (n: number) => new Date(Date.now() - n * day)

// Batches of 2, so a pass takes several statements. Fresh: the app builds its own Retention (from the environment, unset).
const testLayer = Layer.fresh(Retention.Default).pipe(
  Layer.provide(retentionWith({ runRetentionDays: Option.some(30), batchSize: 2, pauseMillis: 1 })),
  Layer.provideMerge(layer())
)

withLayer(testLayer, { excludeTestServices: true })("retention", (it) => {
  describe("RUN_RETENTION_DAYS", () => {
    it.effect("deletes old terminal runs, their timeline and delivery records, and old run.requested audit rows; touches nothing younger", () =>
      Effect.gen(function*() {
        const sql = yield* SqlClient.SqlClient
        const retention = yield* Retention
        const env = yield* setupEnvironment()
        const other = yield* addEnvironment(env)
        const t = yield* createTrigger(env)
        const t2 = yield* createTrigger(other)
        const run = (status: RunStatus, created: number, ended: number | null, triggerId = t.id, environmentId = env.environmentId) =>
          insertRun(triggerId, environmentId, { status, createdAt: daysAgo(created), endedAt: ended === null ? null : daysAgo(ended) })
        const retryOf = (retry: string, original: string) =>
          sql`UPDATE runs SET retry_of_run_id = ${original}, attempt = 2 WHERE id = ${retry}`.pipe(Effect.orDie)
        const delivery = (runId: string, triggerId = t.id) =>
          sql`INSERT INTO webhook_deliveries (id, run_id, trigger_id, url, outcome, status_code, attempt_count)
              VALUES (${uuidv7()}, ${runId}, ${triggerId}, 'https://example.com/hook', 'delivered', 200, 1)`.pipe(Effect.orDie)
        const audit = (action: string, created: number, environmentId = env.environmentId) =>
          Effect.gen(function*() {
            const id = uuidv7()
            yield* sql`INSERT INTO audit_log (id, environment_id, actor_type, action, target_type, created_at)
                       VALUES (${id}, ${environmentId}, 'system', ${action}, 'run', ${daysAgo(created)})`.pipe(Effect.orDie)
            return id
          })

        // Gone: five old terminal runs (more than a batch), one with a delivery record; an old run of another environment;
        // an old run and its old retry.
        const old: Array<string> = []
        for (const status of ["succeeded", "failed", "timed_out", "succeeded", "failed"] as const) old.push(yield* run(status, 41, 40))
        yield* delivery(old[0]!)
        old.push(yield* run("succeeded", 45, 45, t2.id, other.environmentId))
        const oldOriginal = yield* run("failed", 50, 50)
        const oldRetry = yield* run("failed", 50, 49)
        yield* retryOf(oldRetry, oldOriginal)
        old.push(oldOriginal, oldRetry)

        // Kept: younger terminal runs (one with a delivery record); an old active run; an old run whose webhook is
        // still pending; an old run whose retry ended within the window; an old run whose retry is still queued.
        const youngEnded = yield* run("succeeded", 31, 29)
        yield* delivery(youngEnded)
        const young = [youngEnded, yield* run("failed", 1, 1), yield* run("queued", 0, null)]
        // Running for 60 days, its deadline an hour away (so the supervisor leaves it alone).
        const running = uuidv7()
        yield* sql`INSERT INTO runs (id, trigger_id, environment_id, status, timeout_seconds, heartbeat_timeout_seconds, max_retries,
                                     created_at, deadline_at)
                   VALUES (${running}, ${t.id}, ${env.environmentId}, 'running', 3600, 30, 0, ${daysAgo(60)}, ${new Date(Date.now() + 3_600_000)})`.pipe(
          Effect.orDie
        )
        const kept: Array<string> = [running]
        const pending = yield* run("succeeded", 40, 40)
        yield* sql`INSERT INTO webhook_outbox (run_id, trigger_id, url) VALUES (${pending}, ${t.id}, 'https://example.com/hook')`.pipe(Effect.orDie)
        kept.push(pending)
        const originalOfYoung = yield* run("failed", 40, 40)
        const youngRetry = yield* run("succeeded", 40, 2)
        yield* retryOf(youngRetry, originalOfYoung)
        const originalOfActive = yield* run("timed_out", 40, 40)
        const activeRetry = yield* run("queued", 40, null)
        yield* retryOf(activeRetry, originalOfActive)
        kept.push(originalOfYoung, originalOfActive)
        young.push(youngRetry, activeRetry)

        const oldAudit = [yield* audit("run.requested", 31), yield* audit("run.requested", 40), yield* audit("run.requested", 90, other.environmentId)]
        const keptAudit = [yield* audit("run.requested", 29), yield* audit("trigger.created", 90), yield* audit("run.requested", 0)]

        // Timeline rows (run_events) of an old and a young run.
        const event = (runId: string, environmentId = env.environmentId) =>
          sql`INSERT INTO run_events (run_id, environment_id, status, at, reason)
              VALUES (${runId}, ${environmentId}, 'succeeded', now(), 'completed')`.pipe(Effect.orDie)
        yield* event(old[0]!)
        yield* event(youngEnded)

        const snapshot = (ids: ReadonlyArray<string>) =>
          sql<{ row: string }>`SELECT row_to_json(r)::text AS row FROM runs r WHERE id IN ${sql.in(ids)} ORDER BY id`.pipe(
            Effect.map((rows) => rows.map((r) => r.row)),
            Effect.orDie
          )
        const before = yield* snapshot([...young, ...kept])
        const deliveriesBefore = yield* sql<{ run_id: string }>`SELECT run_id FROM webhook_deliveries WHERE run_id = ${youngEnded}`

        const result = yield* retention.sweep()
        expect(result).toEqual({ runs: old.length, auditRows: oldAudit.length })

        const left = yield* sql<{ id: string }>`SELECT id FROM runs WHERE id IN ${sql.in([...old, ...young, ...kept])}`
        expect(new Set(left.map((r) => r.id))).toEqual(new Set([...young, ...kept]))
        // Younger runs and the old ones kept are byte for byte as they were (retryOfRunId included).
        expect(yield* snapshot([...young, ...kept])).toEqual(before)
        expect(yield* sql`SELECT 1 FROM webhook_deliveries WHERE run_id = ${old[0]!}`).toHaveLength(0)
        expect(yield* sql`SELECT run_id FROM webhook_deliveries WHERE run_id = ${youngEnded}`).toEqual(deliveriesBefore)
        expect(yield* sql`SELECT 1 FROM webhook_outbox WHERE run_id = ${pending}`).toHaveLength(1)
        expect(yield* sql`SELECT 1 FROM run_events WHERE run_id = ${old[0]!}`).toHaveLength(0)
        expect(yield* sql`SELECT 1 FROM run_events WHERE run_id = ${youngEnded}`).toHaveLength(1)
        const audits = yield* sql<{ id: string }>`SELECT id FROM audit_log WHERE id IN ${sql.in([...oldAudit, ...keptAudit])}`
        expect(new Set(audits.map((r) => r.id))).toEqual(new Set(keptAudit))

        // A second pass finds nothing more; once the younger retry is old too, the pair goes.
        expect(yield* retention.sweep()).toEqual({ runs: 0, auditRows: 0 })
        yield* sql`UPDATE runs SET ended_at = ${daysAgo(31)} WHERE id = ${youngRetry}`.pipe(Effect.orDie)
        expect((yield* retention.sweep()).runs).toBe(2)
        expect(yield* sql`SELECT 1 FROM runs WHERE id IN (${originalOfYoung}, ${youngRetry})`).toHaveLength(0)
      }))

    it.effect("unset keeps everything; passes running at once delete each row once", () =>
      Effect.gen(function*() {
        const sql = yield* SqlClient.SqlClient
        const retention = yield* Retention
        const env = yield* setupEnvironment()
        const t = yield* createTrigger(env)
        const ids: Array<string> = []
        for (let i = 0; i < 9; i++) ids.push(yield* insertRun(t.id, env.environmentId, { status: "succeeded", createdAt: daysAgo(40), endedAt: daysAgo(40) }))
        expect(yield* retention.sweep(Option.none())).toEqual({ runs: 0, auditRows: 0 })
        expect(yield* sql`SELECT 1 FROM runs WHERE id IN ${sql.in(ids)}`).toHaveLength(9)
        const passes = yield* Effect.all([retention.sweep(), retention.sweep(), retention.sweep()], { concurrency: "unbounded" })
        expect(passes.reduce((n, p) => n + p.runs, 0)).toBe(9)
        expect(yield* sql`SELECT 1 FROM runs WHERE id IN ${sql.in(ids)}`).toHaveLength(0)
      }))
  })
})
