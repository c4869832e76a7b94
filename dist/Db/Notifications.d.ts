import type { SqlError } from "@effect/sql/SqlError";
import * as Context from "effect/Context";
import type * as Effect from "effect/Effect";
import type * as Stream from "effect/Stream";
declare const Notifications_base: Context.TagClass<Notifications, "Db/Notifications", {
    readonly listen: (channel: string) => Stream.Stream<string, SqlError>;
    readonly notify: (channel: string, payload: string) => Effect.Effect<void, SqlError>;
}>;
/**
 * Postgres LISTEN/NOTIFY, so that one instance's assignment wakes a worker
 * long-polling on another instance. Both database backends provide it.
 */
export declare class Notifications extends Notifications_base {
}
export {};
//# sourceMappingURL=Notifications.d.ts.map