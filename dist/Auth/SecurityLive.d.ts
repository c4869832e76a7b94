import * as SqlClient from "@effect/sql/SqlClient";
import * as Layer from "effect/Layer";
import { Origins } from "../Http/Origins.js";
import { Authentication, UserAuthentication, WorkerAuthentication } from "./Security.js";
import { Sessions } from "./Sessions.js";
import { ApiKeys } from "../ApiKeys/ApiKeys.js";
export declare const AuthenticationLive: Layer.Layer<Authentication, never, ApiKeys | Origins | Sessions>;
export declare const UserAuthenticationLive: Layer.Layer<UserAuthentication, never, Origins | Sessions>;
/** How long a verified worker token is trusted without asking the database again. */
export declare const workerTokenTrustMillis = 1000;
export declare const WorkerAuthenticationLive: Layer.Layer<WorkerAuthentication, never, SqlClient.SqlClient>;
//# sourceMappingURL=SecurityLive.d.ts.map