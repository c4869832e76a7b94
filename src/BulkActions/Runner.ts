import * as Effect from "effect/Effect"
import * as Queue from "effect/Queue"
import { type Actor, CurrentActor } from "../Contract/Security.js"
import { Tuning } from "../Config/Tuning.js"
import { uuidv7 } from "../Crypto/Ids.js"
import type { Role } from "../Contract/Domain/Schemas.js"
import { RunCancellation } from "../Runs/Cancellation.js"
import { RunReplays } from "../Runs/Replays.js"
import { Policy } from "../Tenancy/Policy.js"
import { type BatchItem, BulkActionsRepo, type BulkActionRow, type Progress } from "./BulkActionsRepo.js"

/** Runs acted on per recorded batch: the most a crash makes another instance look at again. */
export const batchSize = 100

/**
 * How often an idle runner looks for bulk actions another instance created
 * or left behind: a third of the lease, at most 5 s. A bulk action created
 * here wakes the runner at once; one created elsewhere is that instance's to
 * run, and is only this one's once its lease has lapsed (a crash), so a look
 * every second would buy nothing but a statement a second at idle.
 */
const idleLookMillisOf = (leaseSeconds: number) => Math.min(5000, Math.ceil((leaseSeconds * 1000) / 3))

type Outcome = "done" | "alreadyEnded" | "notVisible" | { readonly failed: string }

/** The one who created the bulk action: its runs are cancelled and replayed in that actor's name and standing. */
const actorOf = (row: BulkActionRow): Actor =>
  row.actor_type === "api_key"
    ? { _tag: "ApiKey", keyId: row.actor_id!, environmentId: row.environment_id, role: row.actor_role as Role }
    : row.actor_type === "mcp"
    ? { _tag: "Mcp", triggerId: row.actor_id!, environmentId: row.environment_id, role: row.actor_role as Role }
    : { _tag: "User", userId: row.actor_id!, sessionHash: "" }

const tally = (items: ReadonlyArray<BatchItem>, outcomes: ReadonlyArray<Outcome>): Progress => {
  let done = 0, alreadyEnded = 0, notVisible = 0, failed = 0
  let lastError: string | undefined
  for (const outcome of outcomes) {
    if (outcome === "done") done++
    else if (outcome === "alreadyEnded") alreadyEnded++
    else if (outcome === "notVisible") notVisible++
    else {
      failed++
      lastError = outcome.failed
    }
  }
  return { cursor: items[items.length - 1]!.run_id, done, alreadyEnded, notVisible, failed, lastError }
}

/**
 * Works through bulk actions in the background, one at a time per instance:
 * takes one no live lease holds (`BulkActionsRepo.claim`), acts on its runs
 * a batch at a time in id order and records each batch with the cursor
 * (renewing the lease), then ends it. A crash loses at most the batch in
 * hand, which the next holder does again: a cancel of a run already
 * cancelled changes nothing (and its audit record, naming the bulk action,
 * tells that this bulk action ended it: done), and a replay carries the Idempotency-Key
 * `bulk:<bulk action id>:<run id>`, so it answers the replay made before the
 * crash instead of making another. Each run is acted on once.
 */
export class BulkActionRunner extends Effect.Service<BulkActionRunner>()("BulkActions/Runner", {
  scoped: Effect.gen(function*() {
    const repo = yield* BulkActionsRepo
    const cancellation = yield* RunCancellation
    const replays = yield* RunReplays
    const policy = yield* Policy
    const { bulkActionLeaseSeconds: leaseSeconds } = yield* Tuning
    const idleLookMillis = idleLookMillisOf(leaseSeconds)
    const owner = uuidv7()
    const wakeUps = yield* Queue.sliding<void>(1)

    // Ended: before this bulk action, or by it in a batch a crash left unrecorded (then it is done).
    const endedBefore = (row: BulkActionRow, item: BatchItem): Effect.Effect<Outcome> =>
      Effect.map(repo.cancelledBy(row, item.run_id), (ours): Outcome => ours ? "done" : "alreadyEnded")

    const cancelOne = (row: BulkActionRow, item: BatchItem): Effect.Effect<Outcome, never, CurrentActor> =>
      cancellation.cancel(item.run_id, row.id).pipe(
        Effect.as<Outcome>("done"),
        Effect.catchTags({
          RunNotFound: () => Effect.succeed<Outcome>("notVisible"),
          NotVisible: () => Effect.succeed<Outcome>("notVisible"),
          RunStateConflict: () => endedBefore(row, item),
          InsufficientRole: (e) => Effect.succeed<Outcome>({ failed: e.message })
        })
      )

    const replayOne = (row: BulkActionRow, item: BatchItem): Effect.Effect<Outcome, never, CurrentActor> =>
      replays.replayOf(
        { id: item.run_id, trigger_id: item.trigger_id!, input: item.input, tags: item.tags ?? [] },
        Effect.succeed(undefined),
        { idempotencyKey: `bulk:${row.id}:${item.run_id}` }
      ).pipe(
        Effect.as<Outcome>("done"),
        Effect.catchTags({
          TriggerNotFound: () => Effect.succeed<Outcome>("notVisible"),
          NotVisible: () => Effect.succeed<Outcome>("notVisible"),
          InsufficientRole: (e) => Effect.succeed<Outcome>({ failed: e.message }),
          ValidationError: (e) => Effect.succeed<Outcome>({ failed: `run ${item.run_id}: ${e.error}` })
        })
      )

    const act = (row: BulkActionRow, items: ReadonlyArray<BatchItem>): Effect.Effect<Progress> =>
      Effect.gen(function*() {
        // The creator's standing now: one who may no longer act here fails the batch rather than acting.
        const allowed = yield* Effect.either(policy.requireRole(row.environment_id, "operator"))
        if (allowed._tag === "Left") return tally(items, items.map(() => ({ failed: allowed.left.message })))
        // Replays go to the run requests all at once, which create each trigger's a statement at a time.
        const outcomes = yield* Effect.forEach(items, (item): Effect.Effect<Outcome, never, CurrentActor> => {
          if (!item.found) return Effect.succeed("notVisible")
          if (row.action === "cancel") return item.ended ? endedBefore(row, item) : cancelOne(row, item)
          return replayOne(row, item)
        }, { concurrency: row.action === "replay" ? batchSize : 4 })
        return tally(items, outcomes)
      }).pipe(Effect.provideService(CurrentActor, actorOf(row)))

    /** Works through one bulk action while the lease is this instance's. */
    const work = (claimed: BulkActionRow) =>
      Effect.gen(function*() {
        let row = claimed
        for (;;) {
          if (row.cancel_requested_at !== null) {
            yield* repo.finish(row.id, owner, "cancelled")
            return yield* Effect.logInfo("bulk action cancelled")
          }
          const items = yield* repo.batch(row, row.cursor, batchSize)
          if (items.length === 0) {
            const ended = yield* repo.finish(row.id, owner, "completed")
            return yield* Effect.logInfo("bulk action completed").pipe(
              Effect.annotateLogs({ done: ended?.done, failed: ended?.failed })
            )
          }
          const progress = yield* act(row, items)
          const next = yield* repo.record(row.id, owner, leaseSeconds, progress)
          if (next === undefined) return yield* Effect.logWarning("bulk action lease lost; another instance goes on with it")
          row = next
        }
      }).pipe(Effect.annotateLogs({ bulkActionId: claimed.id, action: claimed.action }), Effect.withSpan("BulkActions.work"))

    const drain = Effect.gen(function*() {
      for (;;) {
        const row = yield* repo.claim(owner, leaseSeconds)
        if (row === undefined) return
        yield* work(row)
      }
    })

    yield* drain.pipe(
      // A failing database must not stop the loop: it looks again on the next round.
      Effect.catchAllCause((cause) => Effect.logWarning("bulk action runner", cause)),
      Effect.zipRight(Effect.race(Queue.take(wakeUps), Effect.sleep(idleLookMillis))),
      Effect.forever,
      Effect.onInterrupt(() => Effect.ignore(repo.release(owner))),
      Effect.forkScoped
    )

    return {
      /** Looks for work now (a bulk action was created here) rather than at the next round. */
      wake: Effect.asVoid(Queue.offer(wakeUps, undefined))
    } as const
  })
}) {}
