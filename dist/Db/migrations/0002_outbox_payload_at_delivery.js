import * as SqlClient from "@effect/sql/SqlClient";
import * as Effect from "effect/Effect";
/**
 * The webhook body is rendered when the outbox row is leased, from the
 * terminal run (whose reported fields never change once it is terminal), so
 * a terminal transition is one statement. Rows written before this migration
 * keep the payload they were given.
 */
export default Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient;
    yield* sql.unsafe(`ALTER TABLE webhook_outbox ALTER COLUMN payload DROP NOT NULL`);
});
//# sourceMappingURL=0002_outbox_payload_at_delivery.js.map