import type * as SqlClient from "@effect/sql/SqlClient";
/**
 * The scheduler's view of a worker, as SQL over a `workers` row aliased `w`,
 * shared by the assignment pass and run creation so both apply the same rules.
 */
/** `load.active`: runs the worker holds (assigned, claimed, running); `load.waiting`: those not yet claimed. */
export declare const workerLoad: (sql: SqlClient.SqlClient) => import("@effect/sql/Statement").Statement<import("@effect/sql/SqlConnection").Row>;
/**
 * Seen within the last `activeSeconds` at `now`: polling (a waiting poll
 * refreshes it, see `Presence`) or otherwise in touch, so preferred for new runs.
 */
export declare const workerActive: (sql: SqlClient.SqlClient, now: string, activeSeconds: number) => import("@effect/sql/Statement").Statement<import("@effect/sql/SqlConnection").Row>;
/** Seen within the offline threshold at `now`. */
export declare const workerOnline: (sql: SqlClient.SqlClient, now: string, offlineAfterSeconds: number) => import("@effect/sql/Statement").Statement<import("@effect/sql/SqlConnection").Row>;
//# sourceMappingURL=WorkerLoad.d.ts.map