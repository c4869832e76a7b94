import * as SqlClient from "@effect/sql/SqlClient";
import * as Effect from "effect/Effect";
/**
 * Fingerprints of the keys the instances on this database use (never the
 * keys): an instance started with another JWT_SECRET or SECRETS_KEY is
 * refused at start instead of failing every session or webhook later.
 */
export default Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient;
    yield* sql.unsafe(`
    CREATE TABLE key_fingerprints (
      purpose text PRIMARY KEY CHECK (purpose IN ('jwt', 'secrets')),
      fingerprint text NOT NULL,
      updated_at timestamptz NOT NULL DEFAULT now()
    );
  `);
});
//# sourceMappingURL=0010_key_fingerprints.js.map