import type * as SqlClient from "@effect/sql/SqlClient"
import type * as Statement from "@effect/sql/Statement"
import * as Effect from "effect/Effect"
import type { RunRow } from "../Domain/Run.js"
import type { RunEventReason } from "../Domain/Run.js"
import { recordRunEvents } from "./RunEvents.js"

/** The Postgres channel a free outbox row is announced on; delivery loops listen to it. */
export const outboxChannel = "webhook_outbox"

/** The outcome of a terminal transition: the ended run and the retry it spawned, if any. */
export interface Terminal {
  readonly run: RunRow
  readonly retry: RunRow | undefined
}

/**
 * Whom the statement's outbox rows are leased to: a delivery loop of this
 * instance (`owner`, for `leaseMillis`), or nobody (`owner` null: the rows
 * are inserted free and announced on `outboxChannel`).
 */
export interface Lease {
  readonly owner: string | null
  readonly leaseMillis: number
}

/** What a terminal statement answers: the runs it ended, and those whose outbox row it inserted leased (in that order). */
export interface Ended {
  readonly ended: ReadonlyArray<Terminal>
  readonly leased: ReadonlyArray<RunRow>
}

const withoutExtras = ({ handed: _h, kind: _k, ...row }: RunRow & { readonly kind: string; readonly handed: boolean }): RunRow => row

/**
 * The one statement every ending of a run goes through (completion, time-out,
 * revocation, cancel), with what an ending writes besides the run: its retry
 * and its webhook's outbox row.
 */
export const make = (sql: SqlClient.SqlClient) =>
  /**
   * Terminal transitions as ONE statement, so they need no transaction of
   * their own: the conditional UPDATE (`done`, any number of runs), then,
   * from its result, each run's retry (same snapshot, attempt + 1, the id
   * given in `retryIds`) when it failed or timed out with retries left, and
   * its webhook outbox row. The outbox row carries no body: it is rendered
   * from the terminal run when it is delivered.
   * With a `lease` owner, the rows are inserted leased to it (the caller
   * hands them over after the statement); otherwise they are inserted free
   * and announced with NOTIFY (delivered at commit, so the row is visible by
   * then) for any instance to lease. Runs the UPDATE did not match are not
   * in the answer; a run it matched without ending it (a cancel request)
   * gets neither a retry nor a webhook. A cancelled run is never retried.
   */
  (
    update: Statement.Statement<RunRow>,
    reason: RunEventReason | Statement.Fragment,
    now: string,
    retryIds: { readonly runIds: ReadonlyArray<string>; readonly ids: ReadonlyArray<string> },
    lease: Lease,
    // One more data-modifying CTE over `done` (an audit row), written in the same statement.
    also?: Statement.Fragment
  ): Effect.Effect<Ended> => {
    const owner = lease.owner
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
              ELSE now() + ${lease.leaseMillis}::int * interval '1 millisecond' END
          FROM done WHERE webhook_url IS NOT NULL AND ended_at IS NOT NULL
          ON CONFLICT (run_id) DO NOTHING
          RETURNING run_id, lease_owner IS NOT NULL AS handed,
            CASE WHEN lease_owner IS NULL THEN pg_notify(${outboxChannel}, run_id::text) END AS notified
        )${also === undefined ? sql`` : sql`, ${also}`}
        SELECT 'run' AS kind, EXISTS (SELECT 1 FROM queued q WHERE q.run_id = done.id AND q.handed) AS handed, * FROM done
        UNION ALL SELECT 'retry' AS kind, false AS handed, * FROM retry`.pipe(
      Effect.orDie,
      Effect.map((rows) => {
        const retries = new Map(rows.flatMap((r) => r.kind === "retry" ? [[r.retry_of_run_id, withoutExtras(r)] as const] : []))
        return {
          ended: rows.flatMap((r) => r.kind === "run" ? [{ run: withoutExtras(r), retry: retries.get(r.id) }] : []),
          leased: rows.flatMap((r) => r.kind === "run" && r.handed ? [withoutExtras(r)] : [])
        }
      })
    )
  }

/** The terminal statement, as the statements that end runs call it. */
export type TerminalStatement = ReturnType<typeof make>
