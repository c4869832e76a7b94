import * as SqlClient from "@effect/sql/SqlClient"
import { expect, it } from "@effect/vitest"
import * as Chunk from "effect/Chunk"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Fiber from "effect/Fiber"
import * as Layer from "effect/Layer"
import * as Scope from "effect/Scope"
import * as Stream from "effect/Stream"
import { Notifications } from "../../src/Db/Notifications.js"
import type { RunRow } from "../../src/Contract/Domain/Run.js"
import { Transitions } from "../../src/Scheduler/Transitions.js"
import { WorkerProtocol } from "../../src/WorkerProtocol/WorkerProtocol.js"
import { testConfig as configWith } from "../support/TestConfig.js"
import { SecretBox } from "../../src/Crypto/SecretBox.js"
import { DeliveriesRepo, type OutboxRow } from "../../src/Webhooks/DeliveriesRepo.js"
import * as DeliveryWorker from "../../src/Webhooks/DeliveryWorker.js"
import type { Slot } from "../../src/Scheduler/TerminalHandoff.js"
import { DeliveryHandoff, outboxRowOf } from "../../src/Webhooks/Handoff.js"
import { outboxChannel } from "../../src/Webhooks/Outbox.js"
import { payloadOf, type TerminalRun } from "../../src/Webhooks/Payload.js"
import { UrlGuard } from "../../src/Webhooks/UrlGuard.js"
import { addTrigger, databaseLayer, requestRun, schedulerBesideDelivery, seed, type Seed } from "../scheduler/support.js"
import { receiver } from "./support.js"

/** The scheduler on a fresh database with a handoff the test attaches its own loop to, in real time. */
const handoffLayer = Layer.mergeAll(schedulerBesideDelivery(), DeliveriesRepo.Default).pipe(
  Layer.provideMerge(DeliveryHandoff.layer),
  Layer.provideMerge(databaseLayer)
)

/** A stand-in delivery loop that records what it is handed, and can be full. */
const fakeLoop = (leaseMillis = 30_000, capacity = Infinity) => {
  const handed: Array<OutboxRow> = []
  let cancelled = 0
  let room = true
  let taken = 0
  const loop = {
    reserve: (): Slot | undefined => {
      if (!room || taken >= capacity) return undefined
      taken++
      return {
        owner: "loop-under-test",
        leaseMillis,
        hand: (run) => Effect.sync(() => void handed.push(outboxRowOf(run))),
        cancel: Effect.sync(() => {
          taken--
          cancelled++
        })
      }
    }
  }
  return {
    loop,
    handed,
    cancelled: () => cancelled,
    full: () => {
      room = false
    }
  }
}

/** A run of `triggerId` requested, claimed and started by the seeded worker. */
const runningRun = (at: Seed, triggerId: string) =>
  Effect.gen(function*() {
    const transitions = yield* Transitions
    const runId = yield* requestRun(triggerId, at.userId)
    yield* transitions.stepMany(at.workerId, [runId], "claim")
    yield* transitions.stepMany(at.workerId, [runId], "start")
    return runId
  })

const outboxRow = (runId: string) =>
  Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    const rows = yield* sql<{ lease_owner: string | null; lease_until: Date | null; attempts: number }>`
      SELECT lease_owner, lease_until, attempts FROM webhook_outbox WHERE run_id = ${runId}`
    return rows[0]
  }).pipe(Effect.orDie)

const storedRun = (runId: string) =>
  Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    return (yield* sql<RunRow>`SELECT * FROM runs WHERE id = ${runId}`)[0]!
  }).pipe(Effect.orDie)

/** Collects the outbox channel's notifications from now on. */
const listening = Effect.gen(function*() {
  const notifications = yield* Notifications
  const fiber = yield* notifications.listen(outboxChannel).pipe(
    Stream.interruptWhen(Effect.sleep("700 millis")),
    Stream.runCollect,
    Effect.fork
  )
  // Let LISTEN take effect before the statement under test.
  yield* Effect.sleep("200 millis")
  return Effect.map(Fiber.join(fiber), Chunk.toReadonlyArray)
})

const hookUrl = "https://hooks.example.com/done"

/** A seeded environment and worker, a trigger with a webhook, and `fake` attached as this instance's loop (when given). */
const arrange = (fake?: ReturnType<typeof fakeLoop>) =>
  Effect.gen(function*() {
    const handoff = yield* DeliveryHandoff
    if (fake !== undefined) yield* handoff.attach(fake.loop)
    const at = yield* seed(new Date())
    const hooked = yield* addTrigger(at.environmentId, { webhookUrl: hookUrl })
    return { handoff, protocol: yield* WorkerProtocol, at, hooked }
  })

it.live("a terminal transition hands its webhook row, leased, to this instance's loop; nothing is announced", () =>
  Effect.gen(function*() {
    const fake = fakeLoop()
    const { at, hooked: triggerId, protocol } = yield* arrange(fake)
    const runId = yield* runningRun(at, triggerId)

    const announced = yield* listening
    const before = Date.now()
    yield* protocol.complete(at.workerId, runId, { status: "succeeded", stdout: "all good", costUsd: "0.25" })

    expect(fake.handed.map((row) => row.run_id)).toEqual([runId])
    const row = fake.handed[0]!
    expect(row).toMatchObject({ trigger_id: triggerId, url: hookUrl, secret_enc: "k1:sealed", attempts: 0 })
    // The same bytes the lease path renders from the stored terminal run.
    const stored = yield* storedRun(runId)
    expect(row.payload).toBe(payloadOf(stored as unknown as TerminalRun))
    expect(JSON.parse(row.payload)).toMatchObject({ runId, triggerId, status: "succeeded", shortMessage: "all good", costUsd: "0.25" })
    // Stored leased to the loop: no other loop may take it while it is in flight.
    const outbox = (yield* outboxRow(runId))!
    expect(outbox.lease_owner).toBe("loop-under-test")
    expect(new Date(outbox.lease_until!).getTime()).toBeGreaterThan(before + 25_000)
    expect(yield* announced).toEqual([])
    expect(fake.cancelled()).toBe(0)
  }).pipe(Effect.scoped, Effect.provide(handoffLayer)))

it.live("a transition that changes nothing, or a run without a webhook, gives its place back", () =>
  Effect.gen(function*() {
    const fake = fakeLoop()
    const { at, hooked, protocol } = yield* arrange(fake)
    const runId = yield* runningRun(at, hooked)
    yield* protocol.complete(at.workerId, runId, { status: "failed", stderr: "boom" })
    expect(fake.handed.length).toBe(1)

    // Completing again is a 409: the statement matched nothing, nothing is handed.
    const again = yield* Effect.exit(protocol.complete(at.workerId, runId, { status: "succeeded" }))
    expect(Exit.isFailure(again)).toBe(true)
    expect(fake.cancelled()).toBe(1)

    const plain = yield* addTrigger(at.environmentId, { webhookUrl: null })
    const quiet = yield* runningRun(at, plain)
    yield* protocol.complete(at.workerId, quiet, { status: "succeeded" })
    expect(fake.cancelled()).toBe(2)
    expect(fake.handed.length).toBe(1)
    expect(yield* outboxRow(quiet)).toBeUndefined()
  }).pipe(Effect.scoped, Effect.provide(handoffLayer)))

it.live("a full loop (or none attached): the row is stored free and announced for any instance to lease", () =>
  Effect.gen(function*() {
    const { at, handoff, hooked: triggerId, protocol } = yield* arrange()

    const unattached = yield* runningRun(at, triggerId)
    const first = yield* listening
    yield* protocol.complete(at.workerId, unattached, { status: "succeeded" })
    expect(yield* first).toEqual([unattached])
    expect((yield* outboxRow(unattached))!.lease_owner).toBeNull()

    const fake = fakeLoop()
    fake.full()
    yield* handoff.attach(fake.loop)
    const whileFull = yield* runningRun(at, triggerId)
    const second = yield* listening
    yield* protocol.complete(at.workerId, whileFull, { status: "succeeded" })
    expect(yield* second).toEqual([whileFull])
    expect((yield* outboxRow(whileFull))!.lease_owner).toBeNull()
    expect(fake.handed).toEqual([])
  }).pipe(Effect.scoped, Effect.provide(handoffLayer)))

it.live("a handed row whose instance dies is leased by another loop once its lease expires, as it was handed", () =>
  Effect.gen(function*() {
    const repo = yield* DeliveriesRepo
    // This loop takes the row and never delivers it: the instance died.
    const fake = fakeLoop(400)
    const { at, hooked: triggerId, protocol } = yield* arrange(fake)
    const runId = yield* runningRun(at, triggerId)
    yield* protocol.complete(at.workerId, runId, { status: "succeeded", stdout: "late" })
    expect(fake.handed.length).toBe(1)

    expect(yield* repo.lease("other-instance", 10, "30 seconds")).toEqual([])
    yield* Effect.sleep("600 millis")
    const taken = yield* repo.lease("other-instance", 10, "30 seconds")
    expect(taken.map((row) => row.run_id)).toEqual([runId])
    expect(taken[0]!.attempts).toBe(0)
    expect(taken[0]!.payload).toBe(fake.handed[0]!.payload)
  }).pipe(Effect.scoped, Effect.provide(handoffLayer)))

it.live("a batched complete hands each webhook it wrote; with room for fewer than the batch, all are announced instead", () =>
  Effect.gen(function*() {
    const fake = fakeLoop(30_000, 3)
    const { at, hooked, protocol } = yield* arrange(fake)
    const plain = yield* addTrigger(at.environmentId, { webhookUrl: null })

    const batch = [yield* runningRun(at, hooked), yield* runningRun(at, plain), yield* runningRun(at, hooked)]
    const result = yield* protocol.completeMany(at.workerId, batch.map((runId) => ({ runId, status: "succeeded" as const })))
    expect(result.ended.map((t) => t.run.id).sort()).toEqual([...batch].sort())
    // Three places taken, two rows written: two handed, one place given back.
    expect(fake.handed.map((row) => row.run_id).sort()).toEqual([batch[0], batch[2]].sort())
    expect(fake.cancelled()).toBe(1)
    for (const row of fake.handed) expect(JSON.parse(row.payload).runId).toBe(row.run_id)

    // Two runs, room for one (the two handed are still in flight in the fake loop): none handed.
    const next = [yield* runningRun(at, hooked), yield* runningRun(at, hooked)]
    const announced = yield* listening
    yield* protocol.completeMany(at.workerId, next.map((runId) => ({ runId, status: "succeeded" as const })))
    expect([...(yield* announced)].sort()).toEqual([...next].sort())
    expect(fake.handed).toHaveLength(2)
    for (const runId of next) expect((yield* outboxRow(runId))!.lease_owner).toBeNull()
  }).pipe(Effect.scoped, Effect.provide(handoffLayer)))

/** The scheduler with the real delivery loop's services (the loop itself is started per test). */
const withDelivery = Layer.mergeAll(schedulerBesideDelivery(), DeliveriesRepo.Default, SecretBox.Default, UrlGuard.Default).pipe(
  Layer.provideMerge(DeliveryHandoff.layer),
  Layer.provideMerge(configWith({ webhookAllowPrivateNetworks: true })),
  Layer.provideMerge(databaseLayer)
)

it.live("shutting the loop down stops a handed delivery in flight at once and hands its row back", () =>
  Effect.gen(function*() {
    const rx = yield* receiver
    rx.script("/slow", ["hang"])
    const box = yield* SecretBox
    const sql = yield* SqlClient.SqlClient
    const { at, hooked, protocol } = yield* arrange()
    yield* sql`UPDATE triggers SET webhook_url = ${rx.url("/slow")}, webhook_secret_enc = ${box.seal("handoff-secret")} WHERE id = ${hooked}`
    const loopScope = yield* Scope.make()
    yield* Layer.buildWithScope(DeliveryWorker.layer, loopScope)
    const runId = yield* runningRun(at, hooked)
    yield* protocol.complete(at.workerId, runId, { status: "succeeded" })
    // Handed to the loop (never announced) and being sent: the receiver holds the request.
    for (let i = 0; i < 250 && rx.received("/slow").length === 0; i++) yield* Effect.sleep("20 millis")
    expect(rx.received("/slow")).toHaveLength(1)
    expect((yield* outboxRow(runId))!.lease_owner).not.toBeNull()

    const started = Date.now()
    yield* Scope.close(loopScope, Exit.void)
    // Waiting for the hanging attempt would take its 10 s timeout; half of that
    // leaves room for a machine at load 16.
    expect(Date.now() - started).toBeLessThan(5_000)
    const row = (yield* outboxRow(runId))!
    expect(row.lease_owner).toBeNull()
    expect(row.attempts).toBe(0)
  }).pipe(Effect.scoped, Effect.provide(withDelivery)), { timeout: 30_000 })
