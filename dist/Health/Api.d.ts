import { HttpApiEndpoint, HttpApiGroup } from "@effect/platform";
import { ServiceUnavailable } from "../Domain/Errors.js";
declare const HealthApi_base: HttpApiGroup.HttpApiGroup<"health", HttpApiEndpoint.HttpApiEndpoint<"health", "GET", never, never, never, never, {
    readonly status: "ok";
}, ServiceUnavailable, never, never> | HttpApiEndpoint.HttpApiEndpoint<"live", "GET", never, never, never, never, {
    readonly status: "ok";
}, never, never, never> | HttpApiEndpoint.HttpApiEndpoint<"ready", "GET", never, never, never, never, {
    readonly status: "ready";
}, ServiceUnavailable, never, never>, never, never, false>;
export declare class HealthApi extends HealthApi_base {
}
export {};
//# sourceMappingURL=Api.d.ts.map