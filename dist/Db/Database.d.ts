import * as SqlClient from "@effect/sql/SqlClient";
import * as PgClient from "@effect/sql-pg/PgClient";
import * as Layer from "effect/Layer";
import * as Redacted from "effect/Redacted";
import { SqlError } from "@effect/sql/SqlError";
import { AppConfig } from "../Config/AppConfig.js";
import { Notifications } from "./Notifications.js";
/**
 * A real Postgres server through `@effect/sql-pg`, plus LISTEN/NOTIFY. The
 * tables live in `options.schema` (default `pipeline_triggers`), created here
 * before anything else runs.
 */
export declare const layerPg: (url: Redacted.Redacted, options?: {
    readonly preparedStatements?: boolean;
    readonly schema?: string;
}) => Layer.Layer<SqlClient.SqlClient | Notifications | PgClient.PgClient, SqlError, never>;
/**
 * The database the configuration names: `DATABASE_URL` when set, otherwise an
 * embedded Postgres persisted under `DATA_DIR/pg`. Migrations run on both.
 */
export declare const layer: Layer.Layer<SqlClient.SqlClient | Notifications, unknown, AppConfig>;
//# sourceMappingURL=Database.d.ts.map