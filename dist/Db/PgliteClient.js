import * as Reactivity from "@effect/experimental/Reactivity";
import * as SqlClient from "@effect/sql/SqlClient";
import { SqlError } from "@effect/sql/SqlError";
import * as PgClient from "@effect/sql-pg/PgClient";
import { PGlite } from "@electric-sql/pglite";
import * as Context from "effect/Context";
import * as Effect from "effect/Effect";
import * as Layer from "effect/Layer";
import * as Stream from "effect/Stream";
import * as fs from "node:fs";
import * as Permits from "../Concurrency/Permits.js";
import { Notifications } from "./Notifications.js";
import * as DataDirLock from "./DataDirLock.js";
import * as Schema from "./Schema.js";
/**
 * A `SqlClient` over one embedded PGlite database.
 *
 * PGlite is a single Postgres session: statements from two "connections" would
 * interleave inside one session, so an open transaction would swallow another
 * fiber's statements (or block them forever). One permit guards the session:
 * a transaction holds it from BEGIN to COMMIT, every other statement takes it
 * for the duration of the statement.
 */
export const make = (dataDir, schema = Schema.defaultSchema) => Effect.gen(function* () {
    // One process per data directory (see DataDirLock); released after the database is closed.
    if (dataDir !== undefined)
        yield* DataDirLock.hold(dataDir);
    const db = yield* Effect.acquireRelease(Effect.tryPromise({
        try: async () => {
            // PGlite creates the database directory but not its parents: a new
            // program pointed at `./pipelines-data` must not fail with ENOENT.
            if (dataDir !== undefined)
                await fs.promises.mkdir(dataDir, { recursive: true });
            const db = await PGlite.create(dataDir, {
                // Match node-postgres: int8 and numeric as strings, never lossy numbers.
                parsers: { 20: (x) => x, 1700: (x) => x }
            });
            // One session for the whole life of the database: our schema first, set once.
            await db.exec(`${Schema.prepareStatement(schema)}; SET search_path TO ${Schema.searchPath(schema)}`)
                .catch(async (error) => {
                await db.close();
                throw error;
            });
            return db;
        },
        catch: (cause) => new SqlError({ cause, message: "PGlite: failed to open the embedded database" })
    }), (db) => Effect.promise(() => db.close()).pipe(Effect.ignore));
    // One statement or transaction at a time (PGlite has one connection).
    const lock = yield* Permits.make(1);
    // Without parameters, `exec` uses the simple protocol, which also accepts
    // several statements (migrations); the last statement's rows are returned.
    const run = (sql, params) => Effect.tryPromise({
        try: () => params.length === 0
            ? db.exec(sql).then((rs) => rs.at(-1) ?? { rows: [], fields: [] })
            : db.query(sql, params),
        catch: (cause) => new SqlError({ cause, message: "Failed to execute statement" })
    });
    const makeConnection = (locked) => {
        const guard = (eff) => locked ? eff : lock.withPermit(eff);
        const rows = (sql, params) => guard(Effect.map(run(sql, params), (r) => r.rows));
        return {
            execute: (sql, params, transformRows) => transformRows ? Effect.map(rows(sql, params), transformRows) : rows(sql, params),
            executeRaw: (sql, params) => guard(run(sql, params)),
            executeValues: (sql, params) => guard(Effect.tryPromise({
                try: () => db.query(sql, params, { rowMode: "array" }),
                catch: (cause) => new SqlError({ cause, message: "Failed to execute statement" })
            })).pipe(Effect.map((r) => r.rows)),
            executeUnprepared: (sql, params, transformRows) => transformRows ? Effect.map(rows(sql, params), transformRows) : rows(sql, params),
            executeStream: (sql, params, transformRows) => Stream.fromIterableEffect(transformRows ? Effect.map(rows(sql, params), transformRows) : rows(sql, params))
        };
    };
    const unlocked = makeConnection(false);
    const client = yield* SqlClient.make({
        acquirer: Effect.succeed(unlocked),
        transactionAcquirer: Effect.as(lock.acquireScoped, makeConnection(true)),
        compiler: PgClient.makeCompiler(),
        spanAttributes: [["db.system.name", "postgresql"], ["db.namespace", "pglite"]]
    });
    const notifications = Notifications.of({
        listen: (channel) => Stream.asyncPush((emit) => Effect.acquireRelease(Effect.tryPromise({
            try: () => db.listen(channel, (payload) => emit.single(payload)),
            catch: (cause) => new SqlError({ cause, message: "Failed to listen" })
        }), (unlisten) => Effect.promise(() => unlisten()).pipe(Effect.ignore))),
        notify: (channel, payload) => client `SELECT pg_notify(${channel}, ${payload})`.pipe(Effect.asVoid)
    });
    return { client, notifications };
});
/** `SqlClient` and `Notifications` over an embedded database in `dataDir` (in memory when undefined). */
export const layer = (dataDir, schema) => Layer.scopedContext(Effect.map(make(dataDir, schema), ({ client, notifications }) => Context.make(SqlClient.SqlClient, client).pipe(Context.add(Notifications, notifications)))).pipe(Layer.provide(Reactivity.layer));
//# sourceMappingURL=PgliteClient.js.map