import * as SqlClient from "@effect/sql/SqlClient"
import * as Effect from "effect/Effect"

/**
 * A fingerprint of every row the API can change, to prove that a rejected
 * request changed nothing. Left out: what legitimately moves on any
 * authenticated call (`last_used_at` of keys, `last_seen_at` of workers), the
 * login-throttle table, and what the scheduler moves by itself between two
 * requests: a queued run being assigned (or handed back), so `assigned` reads
 * as `queued` and the assignment columns are dropped.
 */
const tables = [
  "users", "workspaces", "environments", "members", "api_keys", "audit_log", "workers",
  "triggers", "runs", "webhook_outbox", "webhook_deliveries", "sessions"
]

const row = (table: string) =>
  table === "runs"
    ? `(to_jsonb(t) - 'worker_id' - 'assigned_at' - 'deadline_at'
         || jsonb_build_object('status', CASE WHEN t.status = 'assigned' THEN 'queued' ELSE t.status END))`
    : `(to_jsonb(t) - 'last_used_at' - 'last_seen_at')`

export const snapshot = Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  const parts: Array<string> = []
  for (const table of tables) {
    const rows = yield* sql.unsafe<{ n: string; h: string | null }>(
      `SELECT count(*)::text AS n, md5(string_agg(${row(table)}::text, ',' ORDER BY (${row(table)}::text))) AS h FROM ${table} t`
    )
    parts.push(`${table}:${rows[0]!.n}:${rows[0]!.h ?? ""}`)
  }
  return parts.join("|")
}).pipe(Effect.orDie)
