import * as Effect from "effect/Effect";
import { AppConfig } from "../Config/AppConfig.js";
/** The origins allowed for cookie calls: `PUBLIC_URL`'s origin and `ALLOWED_ORIGINS`. */
export class Origins extends Effect.Service()("Http/Origins", {
    effect: Effect.map(AppConfig, (config) => {
        const allowed = new Set([config.publicUrl, ...config.allowedOrigins]);
        return {
            all: [...allowed],
            isAllowed: (origin) => origin !== undefined && allowed.has(origin)
        };
    })
}) {
}
const unsafeMethods = new Set(["POST", "PUT", "PATCH", "DELETE"]);
export const isUnsafeMethod = (method) => unsafeMethods.has(method.toUpperCase());
//# sourceMappingURL=Origins.js.map