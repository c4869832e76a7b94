import * as SqlClient from "@effect/sql/SqlClient"
import * as Effect from "effect/Effect"
import { payloadOf, type TerminalRun } from "./Payload.js"

/** A terminal run with the webhook snapshot taken when it was created. */
export interface OutboxRun extends TerminalRun {
  readonly webhook_url: string | null
  readonly webhook_secret_enc: string | null
}

/**
 * Writes the outbox row for a terminal run. Call it inside the transaction of
 * the terminal transition: the row commits with the status change or not at
 * all, so no terminal run can miss its delivery. Runs of triggers without a
 * webhook write nothing. Idempotent per run (the run id is the key).
 */
export const enqueueTerminal = (run: OutboxRun): Effect.Effect<void, never, SqlClient.SqlClient> =>
  Effect.gen(function*() {
    if (run.webhook_url === null) return
    const sql = yield* SqlClient.SqlClient
    // The NOTIFY wakes the delivery loop on every instance at once instead of
    // at its next poll; one statement for both saves a round trip per run.
    yield* sql`
      WITH queued AS (
        INSERT INTO webhook_outbox (run_id, trigger_id, url, secret_enc, payload)
        VALUES (${run.id}, ${run.trigger_id}, ${run.webhook_url}, ${run.webhook_secret_enc}, ${payloadOf(run)})
        ON CONFLICT (run_id) DO NOTHING
      )
      SELECT pg_notify('webhook_outbox', ${run.id})`.pipe(Effect.orDie)
  })
