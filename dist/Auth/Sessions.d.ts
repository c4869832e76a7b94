import * as SqlClient from "@effect/sql/SqlClient";
import * as Effect from "effect/Effect";
import * as Option from "effect/Option";
import { AppConfig } from "../Config/AppConfig.js";
export declare const sessionMaxAgeSeconds = 604800;
declare const Sessions_base: Effect.Service.Class<Sessions, "Auth/Sessions", {
    readonly effect: Effect.Effect<{
        readonly create: (userId: string) => Effect.Effect<string>;
        readonly authenticate: (token: string) => Effect.Effect<Option.Option<{
            userId: string;
            sessionHash: string;
        }>>;
        readonly revoke: (sessionHash: string) => Effect.Effect<void>;
        readonly cookie: (token: string, maxAge?: number) => string;
        readonly clearCookie: string;
    }, never, SqlClient.SqlClient | AppConfig>;
}>;
/**
 * Server-side sessions behind the JWT cookie: the token names a session id,
 * stored only as its SHA-256, so logout (deleting the row) revokes the token
 * even though its signature stays valid.
 */
export declare class Sessions extends Sessions_base {
}
export {};
//# sourceMappingURL=Sessions.d.ts.map