import * as SqlClient from "@effect/sql/SqlClient";
import * as Effect from "effect/Effect";
/**
 * Lets the busiest updates of a run be HOT (heap-only) updates. Postgres
 * updates a row in place on its page, writing no index entry, only when no
 * indexed column changes (index predicates included). The old active-run
 * indexes named `status`, so claim, start and every heartbeat wrote a new
 * entry into each of the table's indexes. The new ones rest on `worker_id`
 * (set at assignment) and `ended_at` (set once, at the end): claim, start and
 * heartbeat change neither. Every queued run has no worker and has not ended
 * (queries still check `status` on the rows the index finds). Fillfactor
 * leaves each page room for those in-place updates.
 */
declare const _default: Effect.Effect<void, import("@effect/sql/SqlError").SqlError, SqlClient.SqlClient>;
export default _default;
//# sourceMappingURL=0003_hot_run_updates.d.ts.map