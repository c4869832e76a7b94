import { Origins } from "../Http/Origins.js";
import { LoginThrottle } from "./LoginThrottle.js";
import { Sessions } from "./Sessions.js";
import { Users } from "./Users.js";
export declare const AuthLive: import("effect/Layer").Layer<import("@effect/platform/HttpApiGroup").ApiGroup<"pipeline-trigger-service", "auth">, never, import("./Security.js").UserAuthentication | Users | Origins | LoginThrottle | Sessions>;
//# sourceMappingURL=Http.d.ts.map