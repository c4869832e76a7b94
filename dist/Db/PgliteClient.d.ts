import * as Reactivity from "@effect/experimental/Reactivity";
import * as SqlClient from "@effect/sql/SqlClient";
import { SqlError } from "@effect/sql/SqlError";
import * as Effect from "effect/Effect";
import * as Layer from "effect/Layer";
import * as Stream from "effect/Stream";
import { Notifications } from "./Notifications.js";
import * as DataDirLock from "./DataDirLock.js";
/**
 * A `SqlClient` over one embedded PGlite database.
 *
 * PGlite is a single Postgres session: statements from two "connections" would
 * interleave inside one session, so an open transaction would swallow another
 * fiber's statements (or block them forever). One permit guards the session:
 * a transaction holds it from BEGIN to COMMIT, every other statement takes it
 * for the duration of the statement.
 */
export declare const make: (dataDir: string | undefined, schema?: string) => Effect.Effect<{
    client: SqlClient.SqlClient;
    notifications: {
        readonly listen: (channel: string) => Stream.Stream<string, SqlError>;
        readonly notify: (channel: string, payload: string) => Effect.Effect<void, SqlError>;
    };
}, SqlError | DataDirLock.DataDirInUse, import("effect/Scope").Scope | Reactivity.Reactivity>;
/** `SqlClient` and `Notifications` over an embedded database in `dataDir` (in memory when undefined). */
export declare const layer: (dataDir: string | undefined, schema?: string) => Layer.Layer<SqlClient.SqlClient | Notifications, SqlError | DataDirLock.DataDirInUse>;
//# sourceMappingURL=PgliteClient.d.ts.map