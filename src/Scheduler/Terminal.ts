import * as SqlClient from "@effect/sql/SqlClient"
import type * as Statement from "@effect/sql/Statement"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Option from "effect/Option"
import type { RunRow } from "../Runs/Run.js"
import { recordRunEvents, type RunEventReason } from "../Runs/RunTimeline.js"
import { outboxChannel, type Slot, type TerminalHandoff } from "./TerminalHandoff.js"
import type { TransitionKit } from "./TransitionKit.js"

/** The outcome of a terminal transition: the ended run and the retry it spawned, if any. */
export interface Terminal {
  readonly run: RunRow
  readonly retry: RunRow | undefined
}

const withoutExtras = ({ handed: _h, kind: _k, ...row }: RunRow & { readonly kind: string; readonly handed: boolean }): RunRow => row

/**
 * The one statement every ending of a run goes through (completion, time-out,
 * revocation, cancel), with what an ending writes besides the run: its retry
 * and its webhook's outbox row, handed to this instance's delivery loop
 * through the `TerminalHandoff` port when it has room.
 */
export const make = (kit: TransitionKit, handoff: TerminalHandoff["Type"]) => {
  const { sql } = kit

  /**
   * Places in this instance's delivery loop for `n` webhooks (see
   * `TerminalHandoff`): all of them, or none (then every row of the
   * statement takes the NOTIFY path). None inside a transaction: a row
   * would be handed before it commits.
   */
  const reserveSlots = (n: number): Effect.Effect<ReadonlyArray<Slot>> =>
    Effect.flatMap(Effect.serviceOption(SqlClient.TransactionConnection), (transaction) => {
      if (Option.isSome(transaction)) return Effect.succeed([])
      const slots: Array<Slot> = []
      for (let i = 0; i < n; i++) {
        const slot = handoff.reserve()
        // Not enough room: give back what was taken.
        if (slot === undefined) return Effect.as(Effect.forEach(slots, (taken) => taken.cancel, { discard: true }), [])
        slots.push(slot)
      }
      return Effect.succeed(slots)
    })

  /**
   * Terminal transitions as ONE statement, so they need no transaction of
   * their own: the conditional UPDATE (`done`, any number of runs), then,
   * from its result, each run's retry (same snapshot, attempt + 1, the id
   * given in `retryIds`) when it failed or timed out with retries left, and
   * its webhook outbox row. The outbox row carries no body: it is rendered
   * from the terminal run when it is delivered.
   * With places in this instance's delivery loop (`TerminalHandoff`), the
   * rows are inserted leased to the loop and handed to it after the
   * statement; otherwise they are inserted free and announced with NOTIFY
   * (delivered at commit, so the row is visible by then) for any instance
   * to lease. Runs the UPDATE did not match are not in the answer; a run
   * it matched without ending it (a cancel request) gets neither a retry
   * nor a webhook. A cancelled run is never retried.
   */
  const terminal = (
    update: Statement.Statement<RunRow>,
    reason: RunEventReason | Statement.Fragment,
    now: string,
    retryIds: { readonly runIds: ReadonlyArray<string>; readonly ids: ReadonlyArray<string> },
    // One more data-modifying CTE over `done` (an audit row), written in the same statement.
    also?: Statement.Fragment
  ): Effect.Effect<ReadonlyArray<Terminal>> =>
    Effect.uninterruptible(Effect.flatMap(reserveSlots(retryIds.runIds.length), (slots) => {
      const owner = slots[0]?.owner ?? null
      return sql<RunRow & { readonly kind: "run" | "retry"; readonly handed: boolean }>`
        WITH done AS (${update}),
        retry AS (
          INSERT INTO runs (id, trigger_id, environment_id, status, attempt, retry_of_run_id, input,
            timeout_seconds, heartbeat_timeout_seconds, max_retries, webhook_url, webhook_secret_enc, created_at)
          SELECT r.retry_id, trigger_id, environment_id, 'queued', attempt + 1, done.id, input,
            timeout_seconds, heartbeat_timeout_seconds, max_retries, webhook_url, webhook_secret_enc, ${now}::timestamptz
          FROM done JOIN unnest(${retryIds.runIds}::uuid[], ${retryIds.ids}::uuid[]) AS r(run_id, retry_id) ON r.run_id = done.id
          WHERE done.status IN ('failed', 'timed_out') AND done.attempt <= done.max_retries
          RETURNING *
        ),
        logged AS (${recordRunEvents(sql, { from: sql`done`, reason, at: sql`done.ended_at`, where: sql`done.ended_at IS NOT NULL` })}),
        logged_retry AS (${recordRunEvents(sql, { from: sql`retry`, reason: "requested", at: now })}),
        queued AS (
          INSERT INTO webhook_outbox (run_id, trigger_id, url, secret_enc, lease_owner, lease_until)
          SELECT id, trigger_id, webhook_url, webhook_secret_enc, ${owner}::text,
            CASE WHEN ${owner}::text IS NULL THEN NULL
              ELSE now() + ${slots[0]?.leaseMillis ?? 0}::int * interval '1 millisecond' END
          FROM done WHERE webhook_url IS NOT NULL AND ended_at IS NOT NULL
          ON CONFLICT (run_id) DO NOTHING
          RETURNING run_id, lease_owner IS NOT NULL AS handed,
            CASE WHEN lease_owner IS NULL THEN pg_notify(${outboxChannel}, run_id::text) END AS notified
        )${also === undefined ? sql`` : sql`, ${also}`}
        SELECT 'run' AS kind, EXISTS (SELECT 1 FROM queued q WHERE q.run_id = done.id AND q.handed) AS handed, * FROM done
        UNION ALL SELECT 'retry' AS kind, false AS handed, * FROM retry`.pipe(
        Effect.orDie,
        Effect.onExit((exit) => {
          if (slots.length === 0) return Effect.void
          const handed = Exit.isSuccess(exit) ? exit.value.filter((row) => row.kind === "run" && row.handed) : []
          return Effect.all([
            ...handed.map((row, i) => slots[i]!.hand(withoutExtras(row))),
            ...slots.slice(handed.length).map((slot) => slot.cancel)
          ], { discard: true })
        }),
        Effect.map((rows) => {
          const retries = new Map(rows.flatMap((r) => r.kind === "retry" ? [[r.retry_of_run_id, withoutExtras(r)] as const] : []))
          return rows.flatMap((r) => r.kind === "run" ? [{ run: withoutExtras(r), retry: retries.get(r.id) }] : [])
        })
      )
    }))

  return terminal
}

/** The terminal statement, as the transitions that end runs call it. */
export type TerminalStatement = ReturnType<typeof make>
