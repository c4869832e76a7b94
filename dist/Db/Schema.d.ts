import * as SqlClient from "@effect/sql/SqlClient";
import type { SqlError } from "@effect/sql/SqlError";
import * as Effect from "effect/Effect";
/**
 * Every table of the service lives in its own Postgres schema (default
 * `pipeline_triggers`), so it can share a database with the host's own
 * tables: a host that already has `users` or `runs` is not touched. The SQL
 * stays unqualified; each connection's `search_path` names our schema first.
 */
export declare const defaultSchema = "pipeline_triggers";
export declare const isValid: (schema: string) => boolean;
/** The schema name, checked: it is spliced into SQL, so only plain lower-case identifiers. */
export declare const validate: (schema: string) => string;
/** Our schema first; `public` after it only for functions and extensions installed there. */
export declare const searchPath: (schema: string) => string;
/**
 * One statement (a DO block is one transaction) that creates the schema and
 * moves a pre-schema installation into it. The advisory lock keeps two
 * instances starting at once from racing on CREATE SCHEMA.
 */
export declare const prepareStatement: (schema: string) => string;
/** Runs `prepareStatement` on a client. */
export declare const prepare: (schema: string) => Effect.Effect<void, SqlError, SqlClient.SqlClient>;
/**
 * A `SqlClient` over the host's client whose connections see our schema first.
 * The host's pool is shared, so the path is set when a connection is taken
 * and reset when it is given back (two extra round trips per statement: the
 * price of sharing a pool; `layerEmbedded` and `DATABASE_URL` set the path
 * once per connection instead).
 */
export declare const onHostClient: (host: SqlClient.SqlClient, schema: string) => Effect.Effect<SqlClient.SqlClient>;
//# sourceMappingURL=Schema.d.ts.map