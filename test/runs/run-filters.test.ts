import * as SqlClient from "@effect/sql/SqlClient"
import { describe, expect, layer as withLayer } from "@effect/vitest"
import * as Effect from "effect/Effect"
import { uuidv7 } from "../../src/Crypto/Ids.js"
import { activeStatuses, type RunStatus, terminalStatuses } from "../../src/Contract/Domain/Run.js"
import { addEnvironment, createTrigger, insertRun, registerWorker, setupEnvironment } from "../support/Fixtures.js"
import { call, layer } from "../support/TestApp.js"

/**
 * The listing's filters are answered through indexes (migration 0007): an
 * active status through the open runs, a terminal one through `outcome`.
 * The answers must be what `status = X` means, for every status.
 */
withLayer(layer(), { excludeTestServices: true })("run listing filters", (it) => {
  describe("every status, a worker, a window, a cursor", () => {
    it.effect("each status lists exactly its runs, newest first; other environments never", () =>
      Effect.gen(function*() {
        const env = yield* setupEnvironment()
        const other = yield* addEnvironment(env)
        const worker = yield* registerWorker(env)
        const pinned = yield* registerWorker(env)
        const pinnedOther = yield* registerWorker(other)
        const sql = yield* SqlClient.SqlClient
        yield* sql`UPDATE workers SET last_seen_at = now() - interval '1 day' WHERE id IN (${pinned.workerId}, ${pinnedOther.workerId})`.pipe(
          Effect.orDie
        )
        const t = yield* createTrigger(env, { workerId: pinned.workerId })
        const t2 = yield* createTrigger(other, { workerId: pinnedOther.workerId })
        const statuses: ReadonlyArray<RunStatus> = [...activeStatuses, ...terminalStatuses]
        const byStatus = new Map<RunStatus, Array<string>>()
        // Active runs are the online worker's with a deadline an hour away, and queued ones wait for
        // the trigger's pinned worker, which is offline: the scheduler leaves every run as it is.
        const add = (triggerId: string, environmentId: string, status: RunStatus) =>
          Effect.gen(function*() {
            const id = uuidv7()
            const ended = (terminalStatuses as ReadonlyArray<string>).includes(status)
            yield* sql`
              INSERT INTO runs (id, trigger_id, environment_id, status, worker_id, timeout_seconds, heartbeat_timeout_seconds,
                                max_retries, deadline_at, ended_at)
              VALUES (${id}, ${triggerId}, ${environmentId}, ${status}, ${status === "queued" ? null : worker.workerId}, 3600, 30, 0,
                      ${ended || status === "queued" ? null : new Date(Date.now() + 3_600_000)}, ${ended ? new Date() : null})`.pipe(
              Effect.orDie
            )
            return id
          })
        for (const round of [0, 1]) {
          for (const status of statuses) {
            const id = yield* add(t.id, env.environmentId, status)
            byStatus.set(status, [id, ...(byStatus.get(status) ?? [])])
            if (round === 0) yield* add(t2.id, other.environmentId, status)
          }
        }
        for (const status of statuses) {
          const res = yield* call("GET", `/api/v1/environments/${env.environmentId}/runs?status=${status}`, { cookie: env.user.cookie })
          expect(res.status).toBe(200)
          expect({ status, ids: res.body.items.map((r: any) => r.id) }).toEqual({ status, ids: byStatus.get(status) })
          expect(res.body.items.every((r: any) => r.status === status)).toBe(true)
          const ofTrigger = yield* call("GET", `/api/v1/triggers/${t.id}/runs?status=${status}&limit=1`, { cookie: env.user.cookie })
          expect(ofTrigger.body.items.map((r: any) => r.id)).toEqual(byStatus.get(status)!.slice(0, 1))
          const rest = yield* call("GET", `/api/v1/triggers/${t.id}/runs?status=${status}&cursor=${ofTrigger.body.nextCursor}`, {
            cookie: env.user.cookie
          })
          expect({ status, ids: rest.body.items.map((r: any) => r.id) }).toEqual({ status, ids: byStatus.get(status)!.slice(1) })
        }
      }))

    it.effect("a worker with no runs lists nothing; a window and a cursor list what they name", () =>
      Effect.gen(function*() {
        const env = yield* setupEnvironment()
        const t = yield* createTrigger(env)
        const idle = yield* registerWorker(env)
        const busy = yield* registerWorker(env)
        const ids: Array<string> = []
        for (let i = 0; i < 6; i++) {
          ids.push(yield* insertRun(t.id, env.environmentId, {
            status: "succeeded",
            workerId: i % 2 === 0 ? busy.workerId : null,
            createdAt: new Date(Date.UTC(2026, 2, 1, 10, i * 10))
          }))
        }
        const base = `/api/v1/environments/${env.environmentId}/runs`
        const none = yield* call("GET", `${base}?workerId=${idle.workerId}`, { cookie: env.user.cookie })
        expect(none.body).toEqual({ items: [], nextCursor: null })
        const mine = yield* call("GET", `${base}?workerId=${busy.workerId}`, { cookie: env.user.cookie })
        expect(mine.body.items.map((r: any) => r.id)).toEqual([ids[4], ids[2], ids[0]])
        const window = yield* call("GET", `${base}?from=2026-03-01T10:10:00Z&to=2026-03-01T10:30:00Z`, { cookie: env.user.cookie })
        expect(window.body.items.map((r: any) => r.id)).toEqual([ids[3], ids[2], ids[1]])
        const first = yield* call("GET", `${base}?limit=4`, { cookie: env.user.cookie })
        const deep = yield* call("GET", `${base}?cursor=${first.body.nextCursor}`, { cookie: env.user.cookie })
        expect(deep.body.items.map((r: any) => r.id)).toEqual([ids[1], ids[0]])
      }))
  })
})
