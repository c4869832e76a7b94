import * as SqlClient from "@effect/sql/SqlClient";
import * as PgClient from "@effect/sql-pg/PgClient";
import * as Reactivity from "@effect/experimental/Reactivity";
import * as Effect from "effect/Effect";
/**
 * Every table of the service lives in its own Postgres schema (default
 * `pipeline_triggers`), so it can share a database with the host's own
 * tables: a host that already has `users` or `runs` is not touched. The SQL
 * stays unqualified; each connection's `search_path` names our schema first.
 */
export const defaultSchema = "pipeline_triggers";
const identifier = /^[a-z_][a-z0-9_]{0,62}$/;
export const isValid = (schema) => identifier.test(schema);
/** The schema name, checked: it is spliced into SQL, so only plain lower-case identifiers. */
export const validate = (schema) => {
    if (!identifier.test(schema)) {
        throw new Error(`DATABASE_SCHEMA must be a lower-case Postgres identifier (letters, digits, _; at most 63), got ${JSON.stringify(schema)}`);
    }
    return schema;
};
/** Our schema first; `public` after it only for functions and extensions installed there. */
export const searchPath = (schema) => `${validate(schema)},public`;
/**
 * The tables releases before 0.2 created in `public`, moved into the schema on
 * the first start after an upgrade (with their indexes, sequences and data).
 * Only done when `public.pts_migrations` exists, i.e. when these tables are ours.
 */
const legacyTables = [
    "pts_migrations",
    "users",
    "sessions",
    "login_failures",
    "workspaces",
    "environments",
    "members",
    "api_keys",
    "audit_log",
    "workers",
    "triggers",
    "runs",
    "webhook_outbox",
    "webhook_deliveries"
];
/**
 * One statement (a DO block is one transaction) that creates the schema and
 * moves a pre-schema installation into it. The advisory lock keeps two
 * instances starting at once from racing on CREATE SCHEMA.
 */
export const prepareStatement = (schema) => {
    const name = validate(schema);
    const moves = legacyTables.map((table) => `ALTER TABLE IF EXISTS public.${table} SET SCHEMA "${name}";`).join("\n      ");
    return `DO $pts$
  BEGIN
    PERFORM pg_advisory_xact_lock(hashtext('pipeline-trigger-service:schema'));
    CREATE SCHEMA IF NOT EXISTS "${name}";
    IF to_regclass('public.pts_migrations') IS NOT NULL AND to_regclass('"${name}".pts_migrations') IS NULL THEN
      ${moves}
    END IF;
  END
  $pts$`;
};
/** Runs `prepareStatement` on a client. */
export const prepare = (schema) => Effect.flatMap(SqlClient.SqlClient, (sql) => sql.unsafe(prepareStatement(schema))).pipe(Effect.asVoid);
const scoped = (connection, schema) => Effect.acquireRelease(Effect.as(connection.executeRaw(`SET search_path TO ${searchPath(schema)}`, []), connection), 
// The connection goes back to the host's pool: its own queries must not see our tables first.
(connection) => Effect.ignore(connection.executeRaw("RESET search_path", [])));
/**
 * A `SqlClient` over the host's client whose connections see our schema first.
 * The host's pool is shared, so the path is set when a connection is taken
 * and reset when it is given back (two extra round trips per statement: the
 * price of sharing a pool; `layerEmbedded` and `DATABASE_URL` set the path
 * once per connection instead).
 */
export const onHostClient = (host, schema) => {
    const acquirer = Effect.flatMap(host.reserve, (connection) => scoped(connection, schema));
    return SqlClient.make({
        acquirer,
        transactionAcquirer: acquirer,
        compiler: PgClient.makeCompiler(),
        spanAttributes: [["db.system.name", "postgresql"], ["db.namespace", schema]]
    }).pipe(Effect.provide(Reactivity.layer));
};
//# sourceMappingURL=Schema.js.map