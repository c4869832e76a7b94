import * as Effect from "effect/Effect";
import { AppConfig } from "../Config/AppConfig.js";
declare const Origins_base: Effect.Service.Class<Origins, "Http/Origins", {
    readonly effect: Effect.Effect<{
        readonly all: ReadonlyArray<string>;
        readonly isAllowed: (origin: string | undefined) => boolean;
    }, never, AppConfig>;
}>;
/** The origins allowed for cookie calls: `PUBLIC_URL`'s origin and `ALLOWED_ORIGINS`. */
export declare class Origins extends Origins_base {
}
export declare const isUnsafeMethod: (method: string) => boolean;
export {};
//# sourceMappingURL=Origins.d.ts.map