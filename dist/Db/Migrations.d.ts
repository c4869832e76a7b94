import * as Migrator from "@effect/sql/Migrator";
import * as Effect from "effect/Effect";
/**
 * Migrations are bundled with the code (not read from disk), so a program that
 * embeds the scheduler needs no migrations folder. Names are `NNNN_snake_name`.
 */
export declare const migrations: {
    "0001_initial": Effect.Effect<void, import("@effect/sql/SqlError").SqlError, import("@effect/sql/SqlClient").SqlClient>;
    "0002_outbox_payload_at_delivery": Effect.Effect<void, import("@effect/sql/SqlError").SqlError, import("@effect/sql/SqlClient").SqlClient>;
    "0003_hot_run_updates": Effect.Effect<void, import("@effect/sql/SqlError").SqlError, import("@effect/sql/SqlClient").SqlClient>;
    "0004_run_events": Effect.Effect<void, import("@effect/sql/SqlError").SqlError, import("@effect/sql/SqlClient").SqlClient>;
    "0007_history_at_scale": Effect.Effect<void, import("@effect/sql/SqlError").SqlError, import("@effect/sql/SqlClient").SqlClient>;
    "0009_mcp_actor": Effect.Effect<void, import("@effect/sql/SqlError").SqlError, import("@effect/sql/SqlClient").SqlClient>;
    "0010_key_fingerprints": Effect.Effect<void, import("@effect/sql/SqlError").SqlError, import("@effect/sql/SqlClient").SqlClient>;
};
export declare const migrate: Effect.Effect<readonly (readonly [id: number, name: string])[], import("@effect/sql/SqlError").SqlError | Migrator.MigrationError, import("@effect/sql/SqlClient").SqlClient>;
//# sourceMappingURL=Migrations.d.ts.map