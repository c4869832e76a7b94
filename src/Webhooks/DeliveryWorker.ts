import type { SqlError } from "@effect/sql/SqlError"
import * as Chunk from "effect/Chunk"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as FiberSet from "effect/FiberSet"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import * as Queue from "effect/Queue"
import * as Schedule from "effect/Schedule"
import * as Stream from "effect/Stream"
import * as Permits from "../Concurrency/Permits.js"
import { Tuning } from "../Config/Tuning.js"
import { uuidv7 } from "../Crypto/Ids.js"
import { SecretBox } from "../Crypto/SecretBox.js"
import { Notifications } from "../Db/Notifications.js"
import { DeliveryHandoff, outboxRowOf } from "./Handoff.js"
import { outboxChannel } from "./Outbox.js"
import { DeliveriesRepo, type FinalOutcome, type OutboxRow } from "./DeliveriesRepo.js"
import { maxAttempts, runWithRetries } from "./Retry.js"
import * as Sender from "./Sender.js"
import { sign } from "./Signer.js"
import { hotSpan } from "../Config/Tracing.js"
import * as Metrics from "../Observability/Metrics.js"

const outcomeOf = { Delivered: "delivered", Retryable: "retryable", Permanent: "permanent" } as const


export interface DeliveryOptions {
  /** One attempt's deadline (contract: 10 s). */
  readonly attemptTimeout: Duration.DurationInput
  /** How long a leased row stays ours without news; another instance takes it over after that. */
  readonly leaseDuration: Duration.DurationInput
  /** Poll for due rows at least this often, in case a NOTIFY was missed. */
  readonly sweepInterval: Duration.DurationInput
  /** At most this many rows leased per query. */
  readonly batchSize: number
}

export const defaults: DeliveryOptions = {
  attemptTimeout: Duration.seconds(10),
  leaseDuration: Duration.seconds(30),
  sweepInterval: Duration.seconds(5),
  batchSize: 100
}

const errorChars = 1024

/**
 * The delivery loop of one instance. It leases due outbox rows, delivers each
 * in its own fiber (so a slow endpoint never delays another trigger's
 * delivery), and records the final outcome. Bounds:
 * - `webhookConcurrency` HTTP attempts at once (and as many sockets);
 * - 4 × that many rows leased at once: rows waiting out a backoff hold no
 *   socket, and a row is only leased when there is room for it.
 * Rows come two ways: handed over by this instance's terminal transitions,
 * already leased to us (`Webhooks/Handoff`, while there is room), or leased
 * here. Lease wake-ups: NOTIFY on `webhook_outbox` (a row nobody was handed),
 * a finished delivery when the loop was full, and a periodic sweep.
 * On shutdown the fibers are interrupted first, then the leases are handed back.
 */
export const run = (options: Partial<DeliveryOptions> = {}) =>
  Effect.gen(function*() {
    const config = yield* Tuning
    const opts = { ...defaults, leaseDuration: Duration.seconds(config.webhookLeaseSeconds), ...options }
    const repo = yield* DeliveriesRepo
    const box = yield* SecretBox
    const notifications = yield* Notifications
    const send = yield* Sender.make({ attemptTimeout: opts.attemptTimeout })

    const owner = uuidv7()
    const concurrency = Math.max(1, config.webhookConcurrency)
    const maxInFlight = concurrency * 4
    const sweepMs = Duration.toMillis(opts.sweepInterval)
    const permits = yield* Permits.make(concurrency)
    const wake = yield* Queue.sliding<void>(1)
    const signal = Effect.asVoid(Queue.offer(wake, undefined))

    // Registered before the fibers exist, so it runs after they are interrupted.
    yield* Effect.addFinalizer(() =>
      repo.release(owner).pipe(
        Effect.tap((n) => n > 0 ? Effect.logInfo("webhook leases released").pipe(Effect.annotateLogs({ rows: n })) : Effect.void),
        Effect.catchAllCause((cause) => Effect.logWarning("webhook leases not released; they expire", cause))
      )
    )
    // Outcomes that arrive together are written together: one statement for
    // everything queued when the writer comes round (a busy instance finishes
    // hundreds of deliveries a second; a statement each was a fifth of a
    // delivery's cost). Each caller still learns whether its row was its own.
    // Started before the delivery fibers' set, so at shutdown it stops after them.
    const outcomes = yield* Queue.unbounded<{
      readonly row: OutboxRow
      readonly final: FinalOutcome
      /** Resumes the delivery that queued it (a callback: a `Deferred` per delivery cost more than the write). */
      readonly written: (exit: Exit.Exit<boolean, SqlError>) => void
    }>()
    yield* Effect.gen(function*() {
      const batch = Chunk.toReadonlyArray(yield* Queue.takeBetween(outcomes, 1, opts.batchSize))
      const exit = yield* Effect.exit(repo.finalizeMany(owner, batch))
      for (const item of batch) item.written(Exit.map(exit, (mine) => mine.has(item.row.run_id)))
    }).pipe(Effect.forever, Effect.forkScoped)
    const finalize = (row: OutboxRow, final: FinalOutcome): Effect.Effect<boolean, SqlError> =>
      Effect.async<boolean, SqlError>((resume) => {
        outcomes.unsafeOffer({ row, final, written: resume })
      })

    const fibers = yield* FiberSet.make()

    // Opened secrets by sealed value: one trigger's deliveries share one, and
    // an AES-GCM open per delivery was a visible share of the loop. Bounded;
    // the plaintext is in this process's memory while signing anyway.
    const opened = new Map<string, string>()
    const openSecret = (sealed: string): Effect.Effect<string> => {
      const known = opened.get(sealed)
      if (known !== undefined) return Effect.succeed(known)
      return Effect.tap(box.open(sealed), (secret) => {
        if (opened.size >= 1024) opened.clear()
        opened.set(sealed, secret)
      })
    }

    // Plain counters: every fiber runs on the one JS thread, and each update is a single synchronous step.
    let inFlight = 0
    let saturated = false
    const resumeAt = maxInFlight - Math.min(opts.batchSize, Math.ceil(maxInFlight / 2))

    // The outcome is known: keep trying to write it through a short database
    // outage (capped backoff, one minute) rather than leaving the row leased
    // until the lease expires and sending it again.
    const finalizeRetry = Schedule.exponential(Duration.millis(200)).pipe(
      Schedule.either(Schedule.spaced(Duration.seconds(5))),
      Schedule.upTo(Duration.minutes(1))
    )

    const record = (row: OutboxRow, final: FinalOutcome) =>
      finalize(row, final).pipe(
        Effect.tapError((error) => Effect.logWarning("webhook outcome not recorded yet; retrying").pipe(Effect.annotateLogs({ error: error.message }))),
        Effect.retry(finalizeRetry),
        Effect.tap((mine) =>
          mine
            ? Effect.logInfo(final.outcome === "delivered" ? "webhook delivered" : "webhook delivery failed").pipe(
              Effect.annotateLogs({
                outcome: final.outcome,
                statusCode: final.statusCode ?? "none",
                attempts: final.attempts,
                ...(final.error === null ? {} : { error: final.error })
              })
            )
            : Effect.logWarning("webhook lease lost before the outcome was recorded; the new owner records it")
        )
      )

    const deliver = (row: OutboxRow) =>
      Effect.gen(function*() {
        if (row.attempts >= maxAttempts) {
          // Every attempt was made before a crash that came before the record: record the last one.
          return yield* record(row, {
            outcome: "failed",
            statusCode: row.last_status_code,
            responseBody: row.last_response_body,
            attempts: row.attempts,
            error: row.last_error ?? "no attempt left"
          })
        }
        const secret = row.secret_enc === null ? Exit.succeed(null) : yield* Effect.exit(openSecret(row.secret_enc))
        if (Exit.isFailure(secret)) {
          // The sealed form names its key (v1.<keyId>.…): say which key this instance lacks.
          yield* Effect.logError("webhook secret cannot be decrypted: this instance lacks the key that sealed it").pipe(
            Effect.annotateLogs({
              runId: row.run_id,
              keyId: row.secret_enc?.split(".")[1] ?? "unknown",
              hint: "give every instance the same SECRETS_KEY; after a rotation keep the old one in SECRETS_KEY_PREVIOUS"
            })
          )
          return yield* record(row, {
            outcome: "failed",
            statusCode: null,
            responseBody: null,
            attempts: row.attempts,
            error: "webhook secret cannot be decrypted"
          })
        }
        const request: Sender.OutboundRequest = {
          url: row.url,
          body: row.payload,
          signature: secret.value === null ? null : sign(secret.value, row.payload)
        }
        const { attempts, result } = yield* runWithRetries({
          attemptsMade: row.attempts,
          attempt: permits.withPermit(send(request)).pipe(
            Effect.tap((result) => Metrics.record.webhookAttempt(outcomeOf[result._tag])),
            hotSpan("Webhooks.attempt", { runId: row.run_id })
          ),
          onRetry: (n, failure, delay) =>
            Effect.logDebug("webhook attempt failed; retrying").pipe(
              Effect.annotateLogs({ attempts: n, statusCode: failure.statusCode ?? "none", retryInMs: Duration.toMillis(delay) }),
              Effect.zipRight(repo.reschedule(owner, row.run_id, n, delay, opts.leaseDuration, {
                statusCode: failure.statusCode,
                responseBody: failure.responseBody,
                error: failure.error.slice(0, errorChars)
              })),
              // The in-process retry goes on; a lost write only costs a repeated attempt after a crash.
              Effect.catchAllCause((cause) => Effect.logWarning("webhook retry state not saved", cause))
            )
        })
        return yield* record(row, {
          outcome: result._tag === "Delivered" ? "delivered" : "failed",
          statusCode: result.statusCode,
          responseBody: result.responseBody,
          attempts,
          error: result._tag === "Delivered" ? null : result.error.slice(0, errorChars)
        })
      }).pipe(
        Effect.catchAllCause((cause) =>
          // The row stays leased: it is taken up again when the lease expires.
          Effect.logError("webhook delivery interrupted by an internal error", cause)
        ),
        Effect.annotateLogs({ runId: row.run_id, triggerId: row.trigger_id }),
        hotSpan("Webhooks.deliver", { runId: row.run_id })
      )

    // A delivery's place in the loop is given back when it ends. A full loop
    // looks again once a batch's worth has finished, not after every delivery
    // (a lease and a wake-up per delivery).
    const finished = Effect.suspend(() => {
      inFlight--
      return saturated && inFlight <= resumeAt ? signal : Effect.void
    })
    /**
     * Starts the delivery of a row leased to us, its place (`inFlight`) already
     * taken. Interruptible explicitly: a fiber inherits its parent's
     * interruptibility, and a handed row comes from the terminal transition's
     * uninterruptible region; shutdown must still be able to stop it.
     */
    const admit = (row: OutboxRow) =>
      FiberSet.run(
        fibers,
        Effect.interruptible(deliver(row).pipe(Effect.ensuring(finished), Effect.annotateLogs({ service: "webhook-delivery" })))
      )

    /** Leases what there is room for; answers how long to wait before looking again. */
    const poll = Effect.gen(function*() {
      for (;;) {
        const room = maxInFlight - inFlight
        if (room <= 0) {
          saturated = true
          return sweepMs
        }
        const want = Math.min(room, opts.batchSize)
        const rows = yield* repo.lease(owner, want, opts.leaseDuration)
        inFlight += rows.length
        for (const row of rows) yield* admit(row)
        if (rows.length < want) break
      }
      saturated = false
      const due = yield* repo.nextDueIn
      // Never spin: a row due "now" that we could not lease is someone else's for the moment.
      return Option.match(due, { onNone: () => sweepMs, onSome: (ms) => Math.min(sweepMs, Math.max(50, ms)) })
    }).pipe(
      Effect.catchAllCause((cause) =>
        Effect.as(Effect.logWarning("webhook outbox poll failed; trying again", cause), sweepMs)
      )
    )

    const loop = Effect.gen(function*() {
      const waitMs = yield* poll
      yield* Queue.take(wake).pipe(Effect.timeout(Duration.millis(waitMs)), Effect.ignore)
    }).pipe(Effect.forever)

    const listener = notifications.listen(outboxChannel).pipe(
      Stream.runForEach(() => signal),
      Effect.tapErrorCause((cause) => Effect.logWarning("webhook outbox LISTEN failed; reconnecting", cause)),
      Effect.retry(Schedule.spaced(Duration.seconds(1)))
    )

    yield* Effect.forkScoped(listener)
    yield* Effect.forkScoped(loop)

    // Terminal transitions on this instance hand their rows straight here while
    // there is room (see `Webhooks/Handoff`). Attached last, so at shutdown it
    // detaches before the fibers stop; a row handed in that moment is released
    // with the other leases.
    const handoff = yield* DeliveryHandoff
    const leaseMillis = Duration.toMillis(opts.leaseDuration)
    yield* handoff.attach({
      reserve: () => {
        if (inFlight >= maxInFlight) return undefined
        inFlight++
        return { owner, leaseMillis, hand: (run) => Effect.asVoid(admit(outboxRowOf(run))), cancel: finished }
      }
    })
  }).pipe(Effect.annotateLogs({ service: "webhook-delivery" }))

/** The delivery loop as a background layer (see `App.BackgroundLive`). */
export const layerWith = (options: Partial<DeliveryOptions> = {}) => Layer.scopedDiscard(run(options))

export const layer = layerWith()
