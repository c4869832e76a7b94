import * as SqlClient from "@effect/sql/SqlClient";
import * as Effect from "effect/Effect";
/**
 * Fingerprints of the keys the instances on this database use (never the
 * keys): an instance started with another JWT_SECRET or SECRETS_KEY is
 * refused at start instead of failing every session or webhook later.
 */
declare const _default: Effect.Effect<void, import("@effect/sql/SqlError").SqlError, SqlClient.SqlClient>;
export default _default;
//# sourceMappingURL=0010_key_fingerprints.d.ts.map