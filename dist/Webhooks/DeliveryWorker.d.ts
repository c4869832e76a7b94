import * as Duration from "effect/Duration";
import * as Effect from "effect/Effect";
import * as Layer from "effect/Layer";
import { AppConfig } from "../Config/AppConfig.js";
import { SecretBox } from "../Crypto/SecretBox.js";
import { Notifications } from "../Db/Notifications.js";
import { DeliveriesRepo } from "./DeliveriesRepo.js";
export interface DeliveryOptions {
    /** One attempt's deadline (contract: 10 s). */
    readonly attemptTimeout: Duration.DurationInput;
    /** How long a leased row stays ours without news; another instance takes it over after that. */
    readonly leaseDuration: Duration.DurationInput;
    /** Poll for due rows at least this often, in case a NOTIFY was missed. */
    readonly sweepInterval: Duration.DurationInput;
    /** At most this many rows leased per query. */
    readonly batchSize: number;
}
export declare const defaults: DeliveryOptions;
/**
 * The delivery loop of one instance. It leases due outbox rows, delivers each
 * in its own fiber (so a slow endpoint never delays another trigger's
 * delivery), and records the final outcome. Bounds:
 * - `webhookConcurrency` HTTP attempts at once (and as many sockets);
 * - 4 × that many rows leased at once: rows waiting out a backoff hold no
 *   socket, and a row is only leased when there is room for it.
 * Rows come two ways: handed over by this instance's terminal transitions,
 * already leased to us (`Webhooks/Handoff`, while there is room), or leased
 * here. Lease wake-ups: NOTIFY on `webhook_outbox` (a row nobody was handed),
 * a finished delivery when the loop was full, and a periodic sweep.
 * On shutdown the fibers are interrupted first, then the leases are handed back.
 */
export declare const run: (options?: Partial<DeliveryOptions>) => Effect.Effect<void, never, import("effect/Scope").Scope | DeliveriesRepo | Notifications | AppConfig | SecretBox | import("./UrlGuard.js").UrlGuard>;
/** The delivery loop as a background layer (see `App.BackgroundLive`). */
export declare const layerWith: (options?: Partial<DeliveryOptions>) => Layer.Layer<never, never, DeliveriesRepo | Notifications | AppConfig | SecretBox | import("./UrlGuard.js").UrlGuard>;
export declare const layer: Layer.Layer<never, never, DeliveriesRepo | Notifications | AppConfig | SecretBox | import("./UrlGuard.js").UrlGuard>;
//# sourceMappingURL=DeliveryWorker.d.ts.map