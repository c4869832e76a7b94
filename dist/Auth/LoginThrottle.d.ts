import * as SqlClient from "@effect/sql/SqlClient";
import * as Effect from "effect/Effect";
/** After this many failures within the window, the email is locked for `lockSeconds`. */
export declare const maxFailures = 5;
declare const LoginThrottle_base: Effect.Service.Class<LoginThrottle, "Auth/LoginThrottle", {
    readonly effect: Effect.Effect<{
        readonly isLocked: (email: string) => Effect.Effect<boolean>;
        readonly recordFailure: (email: string) => Effect.Effect<void>;
        readonly reset: (email: string) => Effect.Effect<void>;
    }, never, SqlClient.SqlClient>;
}>;
/**
 * Login throttling per email, kept in the database so every instance sees the
 * same count. Unknown emails are throttled too, so 429 reveals nothing.
 */
export declare class LoginThrottle extends LoginThrottle_base {
}
export {};
//# sourceMappingURL=LoginThrottle.d.ts.map