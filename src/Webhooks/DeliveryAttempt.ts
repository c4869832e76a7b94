import type { SqlError } from "@effect/sql/SqlError"
import * as Chunk from "effect/Chunk"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Queue from "effect/Queue"
import * as Schedule from "effect/Schedule"
import type * as Scope from "effect/Scope"
import type { Permits } from "../Concurrency/Permits.js"
import { hotSpan } from "../Config/Tracing.js"
import type { SecretBox } from "../Crypto/SecretBox.js"
import * as Metrics from "../Observability/Metrics.js"
import type { DeliveriesRepo, FinalOutcome, OutboxRow } from "./DeliveriesRepo.js"
import { maxAttempts, runWithRetries } from "./Retry.js"
import type * as Sender from "./Sender.js"
import { sign } from "./Signer.js"

const outcomeOf = { Delivered: "delivered", Retryable: "retryable", Permanent: "permanent" } as const

const errorChars = 1024

/**
 * One row's delivery, from a row leased to `owner` to its recorded outcome:
 * the secret opened, the attempts made (each under one of `permits`, the
 * retry state saved between them) and the final outcome written. The
 * delivery loop (`DeliveryWorker`) decides which rows and when; this knows
 * nothing of the loop. The outcome writer is a fiber of the enclosing scope:
 * started before the loop's delivery fibers, so at shutdown it stops after them.
 */
export const make = (deps: {
  readonly repo: DeliveriesRepo
  readonly box: SecretBox
  /** This loop's lease owner. */
  readonly owner: string
  readonly send: Sender.Send
  readonly permits: Permits
  readonly leaseDuration: Duration.DurationInput
  /** At most this many outcomes written per statement. */
  readonly batchSize: number
}): Effect.Effect<(row: OutboxRow) => Effect.Effect<void>, never, Scope.Scope> =>
  Effect.gen(function*() {
    const { box, owner, permits, repo, send } = deps
    const opts = { leaseDuration: deps.leaseDuration, batchSize: deps.batchSize }

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

    return deliver
  })
