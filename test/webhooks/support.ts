import * as SqlClient from "@effect/sql/SqlClient"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as http from "node:http"
import type { AddressInfo } from "node:net"
import { type AppConfigShape } from "../../src/Config/AppConfig.js"
import { testConfig as configWith } from "../support/TestConfig.js"
import { uuidv7 } from "../../src/Crypto/Ids.js"
import { SecretBox } from "../../src/Crypto/SecretBox.js"
import { DeliveriesRepo } from "../../src/Webhooks/DeliveriesRepo.js"
import * as DeliveryWorker from "../../src/Webhooks/DeliveryWorker.js"
import { DeliveryHandoff } from "../../src/Webhooks/Handoff.js"
import { outboxChannel } from "../../src/Webhooks/Outbox.js"
import { UrlGuard } from "../../src/Webhooks/UrlGuard.js"
import * as TestDatabase from "../support/TestDatabase.js"

/** What a test receiver answers: a status (with an optional body and headers), or no answer at all. */
export type Reply = number | { readonly status: number; readonly body?: string; readonly headers?: Record<string, string> } | "hang"

export interface Received {
  readonly path: string
  readonly headers: http.IncomingHttpHeaders
  readonly raw: Buffer
  readonly at: number
}

/**
 * A real HTTP receiver on 127.0.0.1. Each path answers its script in order
 * (the last reply repeats); unknown paths answer 200.
 */
export const receiver = Effect.gen(function*() {
  const scripts = new Map<string, ReadonlyArray<Reply>>()
  const received: Array<Received> = []
  const hanging = new Set<http.ServerResponse>()
  const server = http.createServer((req, res) => {
    const chunks: Array<Buffer> = []
    req.on("data", (c: Buffer) => chunks.push(c))
    req.on("end", () => {
      const path = req.url ?? "/"
      const n = received.filter((r) => r.path === path).length
      received.push({ path, headers: req.headers, raw: Buffer.concat(chunks), at: Date.now() })
      const script = scripts.get(path) ?? [200]
      const reply = script[Math.min(n, script.length - 1)]!
      if (reply === "hang") {
        hanging.add(res)
        return
      }
      const r = typeof reply === "number" ? { status: reply } : reply
      res.writeHead(r.status, { "content-type": "text/plain", ...r.headers })
      res.end(r.body ?? `reply ${r.status}`)
    })
  })
  yield* Effect.acquireRelease(
    Effect.async<void>((resume) => {
      server.listen(0, "127.0.0.1", () => resume(Effect.void))
    }),
    () =>
      Effect.async<void>((resume) => {
        for (const res of hanging) res.destroy()
        server.closeAllConnections()
        server.close(() => resume(Effect.void))
      })
  )
  const port = (server.address() as AddressInfo).port
  return {
    port,
    url: (path: string) => `http://127.0.0.1:${port}${path}`,
    script: (path: string, replies: ReadonlyArray<Reply>) => void scripts.set(path, replies),
    received: (path?: string) => path === undefined ? [...received] : received.filter((r) => r.path === path)
  }
})

/** Database, config and the services the delivery worker needs; the worker itself is started per test. */
export const servicesLayer = (config: Partial<AppConfigShape> = {}) =>
  Layer.mergeAll(DeliveriesRepo.Default, SecretBox.Default, UrlGuard.Default).pipe(
    Layer.provideMerge(TestDatabase.layer),
    Layer.provideMerge(configWith({ webhookAllowPrivateNetworks: true, ...config }))
  )

/** Starts a delivery worker (one "instance") for the enclosing scope; closing the scope is a graceful shutdown. */
export const startWorker = (options: Partial<DeliveryWorker.DeliveryOptions> = {}, config?: Partial<AppConfigShape>) =>
  Effect.gen(function*() {
    // Its own handoff: nothing on this instance ends runs, so nothing is handed to it.
    const base = DeliveryWorker.layerWith(options).pipe(Layer.provide(DeliveryHandoff.layer))
    const layer = config === undefined
      ? base
      : base.pipe(Layer.provide(UrlGuard.Default), Layer.provide(configWith({ webhookAllowPrivateNetworks: true, ...config })))
    yield* Layer.build(layer)
  })

/** A workspace, environment and trigger written with SQL; answers ids. */
export const seedTrigger = (webhookUrl: string | null, secret: string | null = "a-very-secret-webhook-key") =>
  Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    const box = yield* SecretBox
    const userId = uuidv7()
    const workspaceId = uuidv7()
    const environmentId = uuidv7()
    const triggerId = uuidv7()
    yield* sql`INSERT INTO users (id, email, password_hash) VALUES (${userId}, ${`u-${userId}@example.com`}, 'x')`
    yield* sql`INSERT INTO workspaces (id, name, owner_id) VALUES (${workspaceId}, 'ws', ${userId})`
    yield* sql`INSERT INTO environments (id, workspace_id, name) VALUES (${environmentId}, ${workspaceId}, 'env')`
    yield* sql`
      INSERT INTO triggers (id, environment_id, name, timeout_seconds, heartbeat_timeout_seconds, max_retries,
                            webhook_url, webhook_secret_enc)
      VALUES (${triggerId}, ${environmentId}, 'hooked', 3600, 30, 0, ${webhookUrl},
              ${secret === null ? null : box.seal(secret)})`
    return { triggerId, environmentId, userId }
  }).pipe(Effect.orDie)

/** Replaces the trigger's secret (what a PATCH does). */
export const setSecret = (triggerId: string, secret: string) =>
  Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    const box = yield* SecretBox
    yield* sql`UPDATE triggers SET webhook_secret_enc = ${box.seal(secret)} WHERE id = ${triggerId}`
  }).pipe(Effect.orDie)

/**
 * A run that fired now (snapshotting the trigger's webhook URL and secret, as
 * run creation does) and ended `status`, with its outbox row written the way
 * the terminal transition writes it.
 */
export const terminalRun = (triggerId: string, status: "succeeded" | "failed" | "timed_out" = "succeeded") =>
  Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    const id = uuidv7()
    yield* sql`
      WITH done AS (
        INSERT INTO runs (id, trigger_id, environment_id, status, timeout_seconds, heartbeat_timeout_seconds,
                          max_retries, webhook_url, webhook_secret_enc, duration_ms, short_message, error_message,
                          cost_usd, fault_class, started_at, ended_at)
        SELECT ${id}, t.id, t.environment_id, ${status}, 3600, 30, 0, t.webhook_url, t.webhook_secret_enc, 1234,
               'hello', ${status === "succeeded" ? null : "boom"}, 0.25, ${status === "succeeded" ? "none" : "client"},
               now(), now()
        FROM triggers t WHERE t.id = ${triggerId}
        RETURNING *
      )
      INSERT INTO webhook_outbox (run_id, trigger_id, url, secret_enc)
      SELECT id, trigger_id, webhook_url, webhook_secret_enc FROM done WHERE webhook_url IS NOT NULL
      RETURNING pg_notify(${outboxChannel}, run_id::text)`
    return id
  }).pipe(Effect.orDie)

/** Polls until `check` holds (real time), failing the test after `timeoutMs`. */
export const eventually = <A>(what: string, probe: Effect.Effect<A, unknown, any>, check: (a: A) => boolean, timeoutMs = 15_000) =>
  Effect.gen(function*() {
    const deadline = Date.now() + timeoutMs
    for (;;) {
      const value = yield* probe
      if (check(value)) return value
      if (Date.now() > deadline) return yield* Effect.dieMessage(`timed out waiting for ${what}: ${JSON.stringify(value)}`)
      yield* Effect.sleep("50 millis")
    }
  })

export const deliveryOf = (runId: string) =>
  Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    const rows = yield* sql<any>`SELECT * FROM webhook_deliveries WHERE run_id = ${runId}`
    return rows[0] as undefined | {
      outcome: string
      status_code: number | null
      response_body: string | null
      attempt_count: number
      error_message: string | null
      url: string
      trigger_id: string
    }
  }).pipe(Effect.orDie)

export const outboxOf = (runId: string) =>
  Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    const rows = yield* sql<any>`SELECT * FROM webhook_outbox WHERE run_id = ${runId}`
    return rows[0] as undefined | {
      attempts: number
      payload: string | null
      lease_owner: string | null
      next_attempt_at: Date
      last_status_code: number | null
    }
  }).pipe(Effect.orDie)
