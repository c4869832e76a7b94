import * as Context from "effect/Context";
/**
 * Postgres LISTEN/NOTIFY, so that one instance's assignment wakes a worker
 * long-polling on another instance. Both database backends provide it.
 */
export class Notifications extends Context.Tag("Db/Notifications")() {
}
//# sourceMappingURL=Notifications.js.map