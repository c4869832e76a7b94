import * as Migrator from "@effect/sql/Migrator"
import * as Effect from "effect/Effect"
import m0001 from "./migrations/0001_initial.js"
import m0002 from "./migrations/0002_outbox_payload_at_delivery.js"
import m0003 from "./migrations/0003_hot_run_updates.js"
import m0004 from "./migrations/0004_run_events.js"
import m0005 from "./migrations/0005_run_cancellation.js"
import m0006 from "./migrations/0006_worker_revoke_drain_redelivery.js"
import m0007 from "./migrations/0007_history_at_scale.js"
import m0008 from "./migrations/0008_scheduled_triggers.js"
import m0009 from "./migrations/0009_mcp_actor.js"
import m0010 from "./migrations/0010_key_fingerprints.js"
import m0011 from "./migrations/0011_run_series_buckets.js"

/**
 * Migrations are bundled with the code (not read from disk), so a program that
 * embeds the scheduler needs no migrations folder. Names are `NNNN_snake_name`.
 */
export const migrations = {
  "0001_initial": m0001,
  "0002_outbox_payload_at_delivery": m0002,
  "0003_hot_run_updates": m0003,
  "0004_run_events": m0004,
  "0005_run_cancellation": m0005,
  "0006_worker_revoke_drain_redelivery": m0006,
  "0007_history_at_scale": m0007,
  "0008_scheduled_triggers": m0008,
  "0009_mcp_actor": m0009,
  "0010_key_fingerprints": m0010,
  "0011_run_series_buckets": m0011
}

const run = Migrator.make({})

export const migrate = run({
  loader: Migrator.fromRecord(migrations),
  table: "pts_migrations"
}).pipe(
  Effect.tap((ran) => ran.length > 0 ? Effect.logInfo("migrations applied").pipe(Effect.annotateLogs({ migrations: ran.map(([id, name]) => `${id}_${name}`).join(",") })) : Effect.void),
  Effect.withSpan("Db.migrate")
)
