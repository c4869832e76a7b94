import * as SqlClient from "@effect/sql/SqlClient";
import * as Effect from "effect/Effect";
/**
 * The webhook body is rendered when the outbox row is leased, from the
 * terminal run (whose reported fields never change once it is terminal), so
 * a terminal transition is one statement. Rows written before this migration
 * keep the payload they were given.
 */
declare const _default: Effect.Effect<void, import("@effect/sql/SqlError").SqlError, SqlClient.SqlClient>;
export default _default;
//# sourceMappingURL=0002_outbox_payload_at_delivery.d.ts.map