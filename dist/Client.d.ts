import { HttpClient } from "@effect/platform";
import * as Effect from "effect/Effect";
import * as Redacted from "effect/Redacted";
/**
 * The typed client of the whole HTTP API, derived from the same `HttpApi`
 * definition the server implements: every endpoint is a method of its group
 * (`client.triggers.create(...)`, `client.workerProtocol.poll(...)`), and each
 * declared error comes back as its class (`Unauthorized`, `NotFound`, ...).
 */
export type PipelineClient = Effect.Effect.Success<ReturnType<typeof makeClient>>;
export interface ClientOptions {
    /** A `pwk_` API key or a `wkt_` worker token, sent as `Authorization: Bearer`. */
    readonly bearer?: string | Redacted.Redacted<string> | undefined;
    /** The session cookie, `auth_token=<JWT>` (as `Set-Cookie` gave it). */
    readonly cookie?: string | undefined;
    /**
     * The `Origin` sent with cookie calls: the service refuses mutating cookie
     * calls without an allowed one (its `PUBLIC_URL` by default).
     */
    readonly origin?: string | undefined;
    /** Any further change to the underlying `HttpClient` (retries, tracing, headers). */
    readonly transformClient?: ((client: HttpClient.HttpClient) => HttpClient.HttpClient) | undefined;
}
/**
 * A client for the service at `baseUrl` (its origin, e.g. `http://localhost:3000`;
 * the `/api/v1` prefix is part of the API definition). Needs an `HttpClient`:
 * provide `FetchHttpClient.layer` or `NodeHttpClient.layerUndici`.
 */
export declare const makeClient: (baseUrl: string | URL, options?: ClientOptions) => Effect.Effect<{
    readonly workspaces: {
        readonly create: <WithResponse extends boolean = false>(request: {
            readonly payload: {
                readonly name: string;
            };
            readonly withResponse?: WithResponse | undefined;
        }) => Effect.Effect<WithResponse extends true ? [{
            readonly id: string;
            readonly name: string;
            readonly ownerId: string;
            readonly createdAt: Date;
        }, import("@effect/platform/HttpClientResponse").HttpClientResponse] : {
            readonly id: string;
            readonly name: string;
            readonly ownerId: string;
            readonly createdAt: Date;
        }, import("./index.js").ValidationError | import("./index.js").BadRequest | import("./index.js").Unauthorized | import("./index.js").Forbidden | import("./index.js").NotFound | import("./index.js").PayloadTooLarge | import("./index.js").InternalError | import("./index.js").ServiceUnavailable | import("@effect/platform/HttpClientError").HttpClientError | import("@effect/platform/HttpApiError").HttpApiDecodeError | import("effect/ParseResult").ParseError, never>;
        readonly list: <WithResponse extends boolean = false>(request: {
            readonly urlParams: {
                readonly limit?: number | undefined;
                readonly cursor?: string | undefined;
            };
            readonly withResponse?: WithResponse | undefined;
        }) => Effect.Effect<WithResponse extends true ? [{
            readonly items: readonly {
                readonly id: string;
                readonly name: string;
                readonly ownerId: string;
                readonly createdAt: Date;
            }[];
            readonly nextCursor: string | null;
        }, import("@effect/platform/HttpClientResponse").HttpClientResponse] : {
            readonly items: readonly {
                readonly id: string;
                readonly name: string;
                readonly ownerId: string;
                readonly createdAt: Date;
            }[];
            readonly nextCursor: string | null;
        }, import("./index.js").ValidationError | import("./index.js").BadRequest | import("./index.js").Unauthorized | import("./index.js").Forbidden | import("./index.js").NotFound | import("./index.js").PayloadTooLarge | import("./index.js").InternalError | import("./index.js").ServiceUnavailable | import("@effect/platform/HttpClientError").HttpClientError | import("@effect/platform/HttpApiError").HttpApiDecodeError | import("effect/ParseResult").ParseError, never>;
        readonly createEnvironment: <WithResponse extends boolean = false>(request: {
            readonly path: {
                readonly wsId: string;
            };
            readonly payload: {
                readonly name: string;
            };
            readonly withResponse?: WithResponse | undefined;
        }) => Effect.Effect<WithResponse extends true ? [{
            readonly id: string;
            readonly name: string;
            readonly createdAt: Date;
            readonly workspaceId: string;
            readonly updatedAt: Date;
        }, import("@effect/platform/HttpClientResponse").HttpClientResponse] : {
            readonly id: string;
            readonly name: string;
            readonly createdAt: Date;
            readonly workspaceId: string;
            readonly updatedAt: Date;
        }, import("./index.js").ValidationError | import("./index.js").BadRequest | import("./index.js").Unauthorized | import("./index.js").Forbidden | import("./index.js").NotFound | import("./index.js").PayloadTooLarge | import("./index.js").InternalError | import("./index.js").ServiceUnavailable | import("@effect/platform/HttpClientError").HttpClientError | import("@effect/platform/HttpApiError").HttpApiDecodeError | import("effect/ParseResult").ParseError, never>;
        readonly listEnvironments: <WithResponse extends boolean = false>(request: {
            readonly path: {
                readonly wsId: string;
            };
            readonly urlParams: {
                readonly limit?: number | undefined;
                readonly cursor?: string | undefined;
            };
            readonly withResponse?: WithResponse | undefined;
        }) => Effect.Effect<WithResponse extends true ? [{
            readonly items: readonly {
                readonly id: string;
                readonly name: string;
                readonly createdAt: Date;
                readonly workspaceId: string;
                readonly updatedAt: Date;
            }[];
            readonly nextCursor: string | null;
        }, import("@effect/platform/HttpClientResponse").HttpClientResponse] : {
            readonly items: readonly {
                readonly id: string;
                readonly name: string;
                readonly createdAt: Date;
                readonly workspaceId: string;
                readonly updatedAt: Date;
            }[];
            readonly nextCursor: string | null;
        }, import("./index.js").ValidationError | import("./index.js").BadRequest | import("./index.js").Unauthorized | import("./index.js").Forbidden | import("./index.js").NotFound | import("./index.js").PayloadTooLarge | import("./index.js").InternalError | import("./index.js").ServiceUnavailable | import("@effect/platform/HttpClientError").HttpClientError | import("@effect/platform/HttpApiError").HttpApiDecodeError | import("effect/ParseResult").ParseError, never>;
    };
    readonly environments: {
        readonly update: <WithResponse extends boolean = false>(request: {
            readonly path: {
                readonly id: string;
            };
            readonly payload: {
                readonly name: string;
            };
            readonly withResponse?: WithResponse | undefined;
        }) => Effect.Effect<WithResponse extends true ? [{
            readonly id: string;
            readonly name: string;
            readonly createdAt: Date;
            readonly workspaceId: string;
            readonly updatedAt: Date;
        }, import("@effect/platform/HttpClientResponse").HttpClientResponse] : {
            readonly id: string;
            readonly name: string;
            readonly createdAt: Date;
            readonly workspaceId: string;
            readonly updatedAt: Date;
        }, import("./index.js").ValidationError | import("./index.js").BadRequest | import("./index.js").Unauthorized | import("./index.js").Forbidden | import("./index.js").NotFound | import("./index.js").PayloadTooLarge | import("./index.js").InternalError | import("./index.js").ServiceUnavailable | import("@effect/platform/HttpClientError").HttpClientError | import("@effect/platform/HttpApiError").HttpApiDecodeError | import("effect/ParseResult").ParseError, never>;
        readonly delete: <WithResponse extends boolean = false>(request: {
            readonly path: {
                readonly id: string;
            };
            readonly withResponse?: WithResponse | undefined;
        }) => Effect.Effect<WithResponse extends true ? [void, import("@effect/platform/HttpClientResponse").HttpClientResponse] : void, import("./index.js").ValidationError | import("./index.js").BadRequest | import("./index.js").Unauthorized | import("./index.js").Forbidden | import("./index.js").NotFound | import("./index.js").Conflict | import("./index.js").PayloadTooLarge | import("./index.js").InternalError | import("./index.js").ServiceUnavailable | import("@effect/platform/HttpClientError").HttpClientError | import("@effect/platform/HttpApiError").HttpApiDecodeError | import("effect/ParseResult").ParseError, never>;
        readonly listMembers: <WithResponse extends boolean = false>(request: {
            readonly path: {
                readonly envId: string;
            };
            readonly urlParams: {
                readonly limit?: number | undefined;
                readonly cursor?: string | undefined;
            };
            readonly withResponse?: WithResponse | undefined;
        }) => Effect.Effect<WithResponse extends true ? [{
            readonly items: readonly {
                readonly createdAt: Date;
                readonly userId: string;
                readonly email: string;
                readonly role: "viewer" | "operator" | "admin" | "owner";
            }[];
            readonly nextCursor: string | null;
        }, import("@effect/platform/HttpClientResponse").HttpClientResponse] : {
            readonly items: readonly {
                readonly createdAt: Date;
                readonly userId: string;
                readonly email: string;
                readonly role: "viewer" | "operator" | "admin" | "owner";
            }[];
            readonly nextCursor: string | null;
        }, import("./index.js").ValidationError | import("./index.js").BadRequest | import("./index.js").Unauthorized | import("./index.js").Forbidden | import("./index.js").NotFound | import("./index.js").PayloadTooLarge | import("./index.js").InternalError | import("./index.js").ServiceUnavailable | import("@effect/platform/HttpClientError").HttpClientError | import("@effect/platform/HttpApiError").HttpApiDecodeError | import("effect/ParseResult").ParseError, never>;
        readonly addMember: <WithResponse extends boolean = false>(request: {
            readonly path: {
                readonly envId: string;
            };
            readonly payload: {
                readonly userId: string;
                readonly role: "viewer" | "operator" | "admin" | "owner";
            };
            readonly withResponse?: WithResponse | undefined;
        }) => Effect.Effect<WithResponse extends true ? [{
            readonly createdAt: Date;
            readonly userId: string;
            readonly email: string;
            readonly role: "viewer" | "operator" | "admin" | "owner";
        }, import("@effect/platform/HttpClientResponse").HttpClientResponse] : {
            readonly createdAt: Date;
            readonly userId: string;
            readonly email: string;
            readonly role: "viewer" | "operator" | "admin" | "owner";
        }, import("./index.js").ValidationError | import("./index.js").BadRequest | import("./index.js").Unauthorized | import("./index.js").Forbidden | import("./index.js").NotFound | import("./index.js").Conflict | import("./index.js").PayloadTooLarge | import("./index.js").InternalError | import("./index.js").ServiceUnavailable | import("@effect/platform/HttpClientError").HttpClientError | import("@effect/platform/HttpApiError").HttpApiDecodeError | import("effect/ParseResult").ParseError, never>;
        readonly updateMember: <WithResponse extends boolean = false>(request: {
            readonly path: {
                readonly userId: string;
                readonly envId: string;
            };
            readonly payload: {
                readonly role: "viewer" | "operator" | "admin" | "owner";
            };
            readonly withResponse?: WithResponse | undefined;
        }) => Effect.Effect<WithResponse extends true ? [{
            readonly createdAt: Date;
            readonly userId: string;
            readonly email: string;
            readonly role: "viewer" | "operator" | "admin" | "owner";
        }, import("@effect/platform/HttpClientResponse").HttpClientResponse] : {
            readonly createdAt: Date;
            readonly userId: string;
            readonly email: string;
            readonly role: "viewer" | "operator" | "admin" | "owner";
        }, import("./index.js").ValidationError | import("./index.js").BadRequest | import("./index.js").Unauthorized | import("./index.js").Forbidden | import("./index.js").NotFound | import("./index.js").Conflict | import("./index.js").PayloadTooLarge | import("./index.js").InternalError | import("./index.js").ServiceUnavailable | import("@effect/platform/HttpClientError").HttpClientError | import("@effect/platform/HttpApiError").HttpApiDecodeError | import("effect/ParseResult").ParseError, never>;
        readonly removeMember: <WithResponse extends boolean = false>(request: {
            readonly path: {
                readonly userId: string;
                readonly envId: string;
            };
            readonly withResponse?: WithResponse | undefined;
        }) => Effect.Effect<WithResponse extends true ? [void, import("@effect/platform/HttpClientResponse").HttpClientResponse] : void, import("./index.js").ValidationError | import("./index.js").BadRequest | import("./index.js").Unauthorized | import("./index.js").Forbidden | import("./index.js").NotFound | import("./index.js").Conflict | import("./index.js").PayloadTooLarge | import("./index.js").InternalError | import("./index.js").ServiceUnavailable | import("@effect/platform/HttpClientError").HttpClientError | import("@effect/platform/HttpApiError").HttpApiDecodeError | import("effect/ParseResult").ParseError, never>;
    };
    readonly apiKeys: {
        readonly list: <WithResponse extends boolean = false>(request: {
            readonly path: {
                readonly envId: string;
            };
            readonly urlParams: {
                readonly limit?: number | undefined;
                readonly cursor?: string | undefined;
            };
            readonly withResponse?: WithResponse | undefined;
        }) => Effect.Effect<WithResponse extends true ? [{
            readonly items: readonly {
                readonly id: string;
                readonly name: string;
                readonly createdAt: Date;
                readonly role: "viewer" | "operator" | "admin" | null;
                readonly prefix: "pwk" | "wrk";
                readonly tokenStart: string;
                readonly lastUsedAt: Date | null;
                readonly consumedAt: Date | null;
            }[];
            readonly nextCursor: string | null;
        }, import("@effect/platform/HttpClientResponse").HttpClientResponse] : {
            readonly items: readonly {
                readonly id: string;
                readonly name: string;
                readonly createdAt: Date;
                readonly role: "viewer" | "operator" | "admin" | null;
                readonly prefix: "pwk" | "wrk";
                readonly tokenStart: string;
                readonly lastUsedAt: Date | null;
                readonly consumedAt: Date | null;
            }[];
            readonly nextCursor: string | null;
        }, import("./index.js").ValidationError | import("./index.js").BadRequest | import("./index.js").Unauthorized | import("./index.js").Forbidden | import("./index.js").NotFound | import("./index.js").PayloadTooLarge | import("./index.js").InternalError | import("./index.js").ServiceUnavailable | import("@effect/platform/HttpClientError").HttpClientError | import("@effect/platform/HttpApiError").HttpApiDecodeError | import("effect/ParseResult").ParseError, never>;
        readonly create: <WithResponse extends boolean = false>(request: {
            readonly path: {
                readonly envId: string;
            };
            readonly payload: {
                readonly name: string;
                readonly role?: "viewer" | "operator" | "admin" | null | undefined;
                readonly prefix: "pwk" | "wrk";
            };
            readonly withResponse?: WithResponse | undefined;
        }) => Effect.Effect<WithResponse extends true ? [{
            readonly id: string;
            readonly name: string;
            readonly createdAt: Date;
            readonly role: "viewer" | "operator" | "admin" | null;
            readonly prefix: "pwk" | "wrk";
            readonly token: string;
        }, import("@effect/platform/HttpClientResponse").HttpClientResponse] : {
            readonly id: string;
            readonly name: string;
            readonly createdAt: Date;
            readonly role: "viewer" | "operator" | "admin" | null;
            readonly prefix: "pwk" | "wrk";
            readonly token: string;
        }, import("./index.js").ValidationError | import("./index.js").BadRequest | import("./index.js").Unauthorized | import("./index.js").Forbidden | import("./index.js").NotFound | import("./index.js").PayloadTooLarge | import("./index.js").InternalError | import("./index.js").ServiceUnavailable | import("@effect/platform/HttpClientError").HttpClientError | import("@effect/platform/HttpApiError").HttpApiDecodeError | import("effect/ParseResult").ParseError, never>;
        readonly delete: <WithResponse extends boolean = false>(request: {
            readonly path: {
                readonly envId: string;
                readonly keyId: string;
            };
            readonly withResponse?: WithResponse | undefined;
        }) => Effect.Effect<WithResponse extends true ? [void, import("@effect/platform/HttpClientResponse").HttpClientResponse] : void, import("./index.js").ValidationError | import("./index.js").BadRequest | import("./index.js").Unauthorized | import("./index.js").Forbidden | import("./index.js").NotFound | import("./index.js").PayloadTooLarge | import("./index.js").InternalError | import("./index.js").ServiceUnavailable | import("@effect/platform/HttpClientError").HttpClientError | import("@effect/platform/HttpApiError").HttpApiDecodeError | import("effect/ParseResult").ParseError, never>;
    };
    readonly audit: {
        readonly list: <WithResponse extends boolean = false>(request: {
            readonly path: {
                readonly envId: string;
            };
            readonly urlParams: {
                readonly limit?: number | undefined;
                readonly cursor?: string | undefined;
                readonly action?: any;
                readonly targetId?: string | undefined;
                readonly actions?: any;
            };
            readonly withResponse?: WithResponse | undefined;
        }) => Effect.Effect<WithResponse extends true ? [{
            readonly items: readonly {
                readonly id: string;
                readonly createdAt: Date;
                readonly environmentId: string;
                readonly actorType: "user" | "api_key" | "worker" | "system" | "mcp";
                readonly actorId: string | null;
                readonly action: string;
                readonly targetType: string;
                readonly targetId: string | null;
                readonly metadata: {
                    readonly [x: string]: unknown;
                };
            }[];
            readonly nextCursor: string | null;
        }, import("@effect/platform/HttpClientResponse").HttpClientResponse] : {
            readonly items: readonly {
                readonly id: string;
                readonly createdAt: Date;
                readonly environmentId: string;
                readonly actorType: "user" | "api_key" | "worker" | "system" | "mcp";
                readonly actorId: string | null;
                readonly action: string;
                readonly targetType: string;
                readonly targetId: string | null;
                readonly metadata: {
                    readonly [x: string]: unknown;
                };
            }[];
            readonly nextCursor: string | null;
        }, import("./index.js").ValidationError | import("./index.js").BadRequest | import("./index.js").Unauthorized | import("./index.js").Forbidden | import("./index.js").NotFound | import("./index.js").PayloadTooLarge | import("./index.js").InternalError | import("./index.js").ServiceUnavailable | import("@effect/platform/HttpClientError").HttpClientError | import("@effect/platform/HttpApiError").HttpApiDecodeError | import("effect/ParseResult").ParseError, never>;
    };
    readonly auth: {
        readonly register: <WithResponse extends boolean = false>(request: {
            readonly payload: {
                readonly email: string;
                readonly password: string;
            };
            readonly withResponse?: WithResponse | undefined;
        }) => Effect.Effect<WithResponse extends true ? [import("./Auth/Users.js").User, import("@effect/platform/HttpClientResponse").HttpClientResponse] : import("./Auth/Users.js").User, import("./index.js").ValidationError | import("./index.js").BadRequest | import("./index.js").Unauthorized | import("./index.js").Forbidden | import("./index.js").NotFound | import("./index.js").Conflict | import("./index.js").PayloadTooLarge | import("./index.js").InternalError | import("./index.js").ServiceUnavailable | import("@effect/platform/HttpClientError").HttpClientError | import("@effect/platform/HttpApiError").HttpApiDecodeError | import("effect/ParseResult").ParseError, never>;
        readonly login: <WithResponse extends boolean = false>(request: {
            readonly payload: {
                readonly email: string;
                readonly password: string;
            };
            readonly withResponse?: WithResponse | undefined;
        }) => Effect.Effect<WithResponse extends true ? [import("./Auth/Users.js").User, import("@effect/platform/HttpClientResponse").HttpClientResponse] : import("./Auth/Users.js").User, import("./index.js").ValidationError | import("./index.js").BadRequest | import("./index.js").Unauthorized | import("./index.js").Forbidden | import("./index.js").NotFound | import("./index.js").PayloadTooLarge | import("./index.js").TooManyRequests | import("./index.js").InternalError | import("./index.js").ServiceUnavailable | import("@effect/platform/HttpClientError").HttpClientError | import("@effect/platform/HttpApiError").HttpApiDecodeError | import("effect/ParseResult").ParseError, never>;
        readonly logout: <WithResponse extends boolean = false>(request: void | {
            readonly withResponse?: WithResponse | undefined;
        }) => Effect.Effect<WithResponse extends true ? [void, import("@effect/platform/HttpClientResponse").HttpClientResponse] : void, import("./index.js").ValidationError | import("./index.js").BadRequest | import("./index.js").Unauthorized | import("./index.js").Forbidden | import("./index.js").NotFound | import("./index.js").PayloadTooLarge | import("./index.js").InternalError | import("./index.js").ServiceUnavailable | import("@effect/platform/HttpClientError").HttpClientError | import("@effect/platform/HttpApiError").HttpApiDecodeError | import("effect/ParseResult").ParseError, never>;
        readonly me: <WithResponse extends boolean = false>(request: void | {
            readonly withResponse?: WithResponse | undefined;
        }) => Effect.Effect<WithResponse extends true ? [import("./Auth/Users.js").User, import("@effect/platform/HttpClientResponse").HttpClientResponse] : import("./Auth/Users.js").User, import("./index.js").ValidationError | import("./index.js").BadRequest | import("./index.js").Unauthorized | import("./index.js").Forbidden | import("./index.js").NotFound | import("./index.js").PayloadTooLarge | import("./index.js").InternalError | import("./index.js").ServiceUnavailable | import("@effect/platform/HttpClientError").HttpClientError | import("@effect/platform/HttpApiError").HttpApiDecodeError | import("effect/ParseResult").ParseError, never>;
        readonly lookup: <WithResponse extends boolean = false>(request: {
            readonly urlParams: {
                readonly email: string;
            };
            readonly withResponse?: WithResponse | undefined;
        }) => Effect.Effect<WithResponse extends true ? [{
            readonly id: string;
            readonly email: string;
        }, import("@effect/platform/HttpClientResponse").HttpClientResponse] : {
            readonly id: string;
            readonly email: string;
        }, import("./index.js").ValidationError | import("./index.js").BadRequest | import("./index.js").Unauthorized | import("./index.js").Forbidden | import("./index.js").NotFound | import("./index.js").PayloadTooLarge | import("./index.js").InternalError | import("./index.js").ServiceUnavailable | import("@effect/platform/HttpClientError").HttpClientError | import("@effect/platform/HttpApiError").HttpApiDecodeError | import("effect/ParseResult").ParseError, never>;
    };
    readonly health: {
        readonly health: <WithResponse extends boolean = false>(request: void | {
            readonly withResponse?: WithResponse | undefined;
        }) => Effect.Effect<WithResponse extends true ? [{
            readonly status: "ok";
        }, import("@effect/platform/HttpClientResponse").HttpClientResponse] : {
            readonly status: "ok";
        }, import("./index.js").ValidationError | import("./index.js").BadRequest | import("./index.js").Unauthorized | import("./index.js").NotFound | import("./index.js").PayloadTooLarge | import("./index.js").InternalError | import("./index.js").ServiceUnavailable | import("@effect/platform/HttpClientError").HttpClientError | import("@effect/platform/HttpApiError").HttpApiDecodeError | import("effect/ParseResult").ParseError, never>;
        readonly live: <WithResponse extends boolean = false>(request: void | {
            readonly withResponse?: WithResponse | undefined;
        }) => Effect.Effect<WithResponse extends true ? [{
            readonly status: "ok";
        }, import("@effect/platform/HttpClientResponse").HttpClientResponse] : {
            readonly status: "ok";
        }, import("./index.js").ValidationError | import("./index.js").BadRequest | import("./index.js").Unauthorized | import("./index.js").NotFound | import("./index.js").PayloadTooLarge | import("./index.js").InternalError | import("./index.js").ServiceUnavailable | import("@effect/platform/HttpClientError").HttpClientError | import("@effect/platform/HttpApiError").HttpApiDecodeError | import("effect/ParseResult").ParseError, never>;
        readonly ready: <WithResponse extends boolean = false>(request: void | {
            readonly withResponse?: WithResponse | undefined;
        }) => Effect.Effect<WithResponse extends true ? [{
            readonly status: "ready";
        }, import("@effect/platform/HttpClientResponse").HttpClientResponse] : {
            readonly status: "ready";
        }, import("./index.js").ValidationError | import("./index.js").BadRequest | import("./index.js").Unauthorized | import("./index.js").NotFound | import("./index.js").PayloadTooLarge | import("./index.js").InternalError | import("./index.js").ServiceUnavailable | import("@effect/platform/HttpClientError").HttpClientError | import("@effect/platform/HttpApiError").HttpApiDecodeError | import("effect/ParseResult").ParseError, never>;
    };
    readonly webhooks: {
        readonly listDeliveries: <WithResponse extends boolean = false>(request: {
            readonly path: {
                readonly id: string;
            };
            readonly urlParams: {
                readonly limit?: number | undefined;
                readonly cursor?: string | undefined;
            };
            readonly withResponse?: WithResponse | undefined;
        }) => Effect.Effect<WithResponse extends true ? [{
            readonly items: readonly import("./Webhooks/Api.js").WebhookDelivery[];
            readonly nextCursor: string | null;
        }, import("@effect/platform/HttpClientResponse").HttpClientResponse] : {
            readonly items: readonly import("./Webhooks/Api.js").WebhookDelivery[];
            readonly nextCursor: string | null;
        }, import("./index.js").ValidationError | import("./index.js").BadRequest | import("./index.js").Unauthorized | import("./index.js").Forbidden | import("./index.js").NotFound | import("./index.js").PayloadTooLarge | import("./index.js").InternalError | import("./index.js").ServiceUnavailable | import("@effect/platform/HttpClientError").HttpClientError | import("@effect/platform/HttpApiError").HttpApiDecodeError | import("effect/ParseResult").ParseError, never>;
    };
    readonly runs: {
        readonly requestRun: <WithResponse extends boolean = false>(request: {
            readonly path: {
                readonly id: string;
            };
            readonly headers: {
                readonly "idempotency-key"?: string | undefined;
            };
            readonly payload: {
                readonly input?: unknown;
            };
            readonly withResponse?: WithResponse | undefined;
        }) => Effect.Effect<WithResponse extends true ? [{
            readonly status: "queued" | "assigned" | "claimed" | "running" | "succeeded" | "failed" | "timed_out";
            readonly id: string;
            readonly createdAt: Date;
            readonly environmentId: string;
            readonly triggerId: string;
            readonly attempt: number;
            readonly retryOfRunId: string | null;
            readonly workerId: string | null;
            readonly input: unknown;
            readonly durationMs: number | null;
            readonly shortMessage: string | null;
            readonly errorMessage: string | null;
            readonly costUsd: string | null;
            readonly faultClass: "infra" | "client" | "none" | null;
            readonly assignedAt: Date | null;
            readonly claimedAt: Date | null;
            readonly startedAt: Date | null;
            readonly lastHeartbeatAt: Date | null;
            readonly endedAt: Date | null;
        }, import("@effect/platform/HttpClientResponse").HttpClientResponse] : {
            readonly status: "queued" | "assigned" | "claimed" | "running" | "succeeded" | "failed" | "timed_out";
            readonly id: string;
            readonly createdAt: Date;
            readonly environmentId: string;
            readonly triggerId: string;
            readonly attempt: number;
            readonly retryOfRunId: string | null;
            readonly workerId: string | null;
            readonly input: unknown;
            readonly durationMs: number | null;
            readonly shortMessage: string | null;
            readonly errorMessage: string | null;
            readonly costUsd: string | null;
            readonly faultClass: "infra" | "client" | "none" | null;
            readonly assignedAt: Date | null;
            readonly claimedAt: Date | null;
            readonly startedAt: Date | null;
            readonly lastHeartbeatAt: Date | null;
            readonly endedAt: Date | null;
        }, import("./index.js").ValidationError | import("./index.js").BadRequest | import("./index.js").Unauthorized | import("./index.js").Forbidden | import("./index.js").NotFound | import("./index.js").PayloadTooLarge | import("./index.js").InternalError | import("./index.js").ServiceUnavailable | import("@effect/platform/HttpClientError").HttpClientError | import("@effect/platform/HttpApiError").HttpApiDecodeError | import("effect/ParseResult").ParseError, never>;
        readonly listTriggerRuns: <WithResponse extends boolean = false>(request: {
            readonly path: {
                readonly id: string;
            };
            readonly urlParams: {
                readonly status?: "queued" | "assigned" | "claimed" | "running" | "succeeded" | "failed" | "timed_out" | undefined;
                readonly limit?: number | undefined;
                readonly from?: Date | undefined;
                readonly cursor?: string | undefined;
                readonly to?: Date | undefined;
                readonly workerId?: string | undefined;
            };
            readonly withResponse?: WithResponse | undefined;
        }) => Effect.Effect<WithResponse extends true ? [{
            readonly items: readonly {
                readonly status: "queued" | "assigned" | "claimed" | "running" | "succeeded" | "failed" | "timed_out";
                readonly id: string;
                readonly createdAt: Date;
                readonly environmentId: string;
                readonly triggerId: string;
                readonly attempt: number;
                readonly retryOfRunId: string | null;
                readonly workerId: string | null;
                readonly input: unknown;
                readonly durationMs: number | null;
                readonly shortMessage: string | null;
                readonly errorMessage: string | null;
                readonly costUsd: string | null;
                readonly faultClass: "infra" | "client" | "none" | null;
                readonly assignedAt: Date | null;
                readonly claimedAt: Date | null;
                readonly startedAt: Date | null;
                readonly lastHeartbeatAt: Date | null;
                readonly endedAt: Date | null;
            }[];
            readonly nextCursor: string | null;
        }, import("@effect/platform/HttpClientResponse").HttpClientResponse] : {
            readonly items: readonly {
                readonly status: "queued" | "assigned" | "claimed" | "running" | "succeeded" | "failed" | "timed_out";
                readonly id: string;
                readonly createdAt: Date;
                readonly environmentId: string;
                readonly triggerId: string;
                readonly attempt: number;
                readonly retryOfRunId: string | null;
                readonly workerId: string | null;
                readonly input: unknown;
                readonly durationMs: number | null;
                readonly shortMessage: string | null;
                readonly errorMessage: string | null;
                readonly costUsd: string | null;
                readonly faultClass: "infra" | "client" | "none" | null;
                readonly assignedAt: Date | null;
                readonly claimedAt: Date | null;
                readonly startedAt: Date | null;
                readonly lastHeartbeatAt: Date | null;
                readonly endedAt: Date | null;
            }[];
            readonly nextCursor: string | null;
        }, import("./index.js").ValidationError | import("./index.js").BadRequest | import("./index.js").Unauthorized | import("./index.js").Forbidden | import("./index.js").NotFound | import("./index.js").PayloadTooLarge | import("./index.js").InternalError | import("./index.js").ServiceUnavailable | import("@effect/platform/HttpClientError").HttpClientError | import("@effect/platform/HttpApiError").HttpApiDecodeError | import("effect/ParseResult").ParseError, never>;
        readonly listEnvironmentRuns: <WithResponse extends boolean = false>(request: {
            readonly path: {
                readonly envId: string;
            };
            readonly urlParams: {
                readonly status?: "queued" | "assigned" | "claimed" | "running" | "succeeded" | "failed" | "timed_out" | undefined;
                readonly limit?: number | undefined;
                readonly from?: Date | undefined;
                readonly cursor?: string | undefined;
                readonly to?: Date | undefined;
                readonly workerId?: string | undefined;
            };
            readonly withResponse?: WithResponse | undefined;
        }) => Effect.Effect<WithResponse extends true ? [{
            readonly items: readonly {
                readonly status: "queued" | "assigned" | "claimed" | "running" | "succeeded" | "failed" | "timed_out";
                readonly id: string;
                readonly createdAt: Date;
                readonly environmentId: string;
                readonly triggerId: string;
                readonly attempt: number;
                readonly retryOfRunId: string | null;
                readonly workerId: string | null;
                readonly input: unknown;
                readonly durationMs: number | null;
                readonly shortMessage: string | null;
                readonly errorMessage: string | null;
                readonly costUsd: string | null;
                readonly faultClass: "infra" | "client" | "none" | null;
                readonly assignedAt: Date | null;
                readonly claimedAt: Date | null;
                readonly startedAt: Date | null;
                readonly lastHeartbeatAt: Date | null;
                readonly endedAt: Date | null;
            }[];
            readonly nextCursor: string | null;
        }, import("@effect/platform/HttpClientResponse").HttpClientResponse] : {
            readonly items: readonly {
                readonly status: "queued" | "assigned" | "claimed" | "running" | "succeeded" | "failed" | "timed_out";
                readonly id: string;
                readonly createdAt: Date;
                readonly environmentId: string;
                readonly triggerId: string;
                readonly attempt: number;
                readonly retryOfRunId: string | null;
                readonly workerId: string | null;
                readonly input: unknown;
                readonly durationMs: number | null;
                readonly shortMessage: string | null;
                readonly errorMessage: string | null;
                readonly costUsd: string | null;
                readonly faultClass: "infra" | "client" | "none" | null;
                readonly assignedAt: Date | null;
                readonly claimedAt: Date | null;
                readonly startedAt: Date | null;
                readonly lastHeartbeatAt: Date | null;
                readonly endedAt: Date | null;
            }[];
            readonly nextCursor: string | null;
        }, import("./index.js").ValidationError | import("./index.js").BadRequest | import("./index.js").Unauthorized | import("./index.js").Forbidden | import("./index.js").NotFound | import("./index.js").PayloadTooLarge | import("./index.js").InternalError | import("./index.js").ServiceUnavailable | import("@effect/platform/HttpClientError").HttpClientError | import("@effect/platform/HttpApiError").HttpApiDecodeError | import("effect/ParseResult").ParseError, never>;
        readonly getRun: <WithResponse extends boolean = false>(request: {
            readonly path: {
                readonly id: string;
            };
            readonly withResponse?: WithResponse | undefined;
        }) => Effect.Effect<WithResponse extends true ? [{
            readonly status: "queued" | "assigned" | "claimed" | "running" | "succeeded" | "failed" | "timed_out";
            readonly id: string;
            readonly createdAt: Date;
            readonly environmentId: string;
            readonly triggerId: string;
            readonly attempt: number;
            readonly retryOfRunId: string | null;
            readonly workerId: string | null;
            readonly input: unknown;
            readonly durationMs: number | null;
            readonly shortMessage: string | null;
            readonly errorMessage: string | null;
            readonly costUsd: string | null;
            readonly faultClass: "infra" | "client" | "none" | null;
            readonly assignedAt: Date | null;
            readonly claimedAt: Date | null;
            readonly startedAt: Date | null;
            readonly lastHeartbeatAt: Date | null;
            readonly endedAt: Date | null;
            readonly triggerName: string;
            readonly retriedByRunId: string | null;
            readonly delivery: import("./Webhooks/Api.js").WebhookDelivery | null;
            readonly cancelRequestedAt: Date | null;
        }, import("@effect/platform/HttpClientResponse").HttpClientResponse] : {
            readonly status: "queued" | "assigned" | "claimed" | "running" | "succeeded" | "failed" | "timed_out";
            readonly id: string;
            readonly createdAt: Date;
            readonly environmentId: string;
            readonly triggerId: string;
            readonly attempt: number;
            readonly retryOfRunId: string | null;
            readonly workerId: string | null;
            readonly input: unknown;
            readonly durationMs: number | null;
            readonly shortMessage: string | null;
            readonly errorMessage: string | null;
            readonly costUsd: string | null;
            readonly faultClass: "infra" | "client" | "none" | null;
            readonly assignedAt: Date | null;
            readonly claimedAt: Date | null;
            readonly startedAt: Date | null;
            readonly lastHeartbeatAt: Date | null;
            readonly endedAt: Date | null;
            readonly triggerName: string;
            readonly retriedByRunId: string | null;
            readonly delivery: import("./Webhooks/Api.js").WebhookDelivery | null;
            readonly cancelRequestedAt: Date | null;
        }, import("./index.js").ValidationError | import("./index.js").BadRequest | import("./index.js").Unauthorized | import("./index.js").Forbidden | import("./index.js").NotFound | import("./index.js").PayloadTooLarge | import("./index.js").InternalError | import("./index.js").ServiceUnavailable | import("@effect/platform/HttpClientError").HttpClientError | import("@effect/platform/HttpApiError").HttpApiDecodeError | import("effect/ParseResult").ParseError, never>;
        readonly runEvents: <WithResponse extends boolean = false>(request: {
            readonly path: {
                readonly id: string;
            };
            readonly withResponse?: WithResponse | undefined;
        }) => Effect.Effect<WithResponse extends true ? [{
            readonly items: readonly {
                readonly at: Date;
                readonly status: "queued" | "assigned" | "claimed" | "running" | "succeeded" | "failed" | "timed_out";
                readonly workerId: string | null;
                readonly reason: "assigned" | "claimed" | "requested" | "started" | "completed" | "claim_timeout" | "heartbeat_timeout" | "execution_timeout" | "cancelled" | "worker_revoked" | "released";
            }[];
        }, import("@effect/platform/HttpClientResponse").HttpClientResponse] : {
            readonly items: readonly {
                readonly at: Date;
                readonly status: "queued" | "assigned" | "claimed" | "running" | "succeeded" | "failed" | "timed_out";
                readonly workerId: string | null;
                readonly reason: "assigned" | "claimed" | "requested" | "started" | "completed" | "claim_timeout" | "heartbeat_timeout" | "execution_timeout" | "cancelled" | "worker_revoked" | "released";
            }[];
        }, import("./index.js").ValidationError | import("./index.js").BadRequest | import("./index.js").Unauthorized | import("./index.js").Forbidden | import("./index.js").NotFound | import("./index.js").PayloadTooLarge | import("./index.js").InternalError | import("./index.js").ServiceUnavailable | import("@effect/platform/HttpClientError").HttpClientError | import("@effect/platform/HttpApiError").HttpApiDecodeError | import("effect/ParseResult").ParseError, never>;
    };
    readonly triggers: {
        readonly list: <WithResponse extends boolean = false>(request: {
            readonly path: {
                readonly envId: string;
            };
            readonly urlParams: {
                readonly limit?: number | undefined;
                readonly cursor?: string | undefined;
                readonly workerId?: string | undefined;
            };
            readonly withResponse?: WithResponse | undefined;
        }) => Effect.Effect<WithResponse extends true ? [{
            readonly items: readonly import("./index.js").Trigger[];
            readonly nextCursor: string | null;
        }, import("@effect/platform/HttpClientResponse").HttpClientResponse] : {
            readonly items: readonly import("./index.js").Trigger[];
            readonly nextCursor: string | null;
        }, import("./index.js").ValidationError | import("./index.js").BadRequest | import("./index.js").Unauthorized | import("./index.js").Forbidden | import("./index.js").NotFound | import("./index.js").PayloadTooLarge | import("./index.js").InternalError | import("./index.js").ServiceUnavailable | import("@effect/platform/HttpClientError").HttpClientError | import("@effect/platform/HttpApiError").HttpApiDecodeError | import("effect/ParseResult").ParseError, never>;
        readonly create: <WithResponse extends boolean = false>(request: {
            readonly path: {
                readonly envId: string;
            };
            readonly payload: {
                readonly description?: string | null | undefined;
                readonly name: string;
                readonly workerId?: string | null | undefined;
                readonly input?: unknown;
                readonly timeoutSeconds?: number | undefined;
                readonly heartbeatTimeoutSeconds?: number | undefined;
                readonly maxRetries?: number | undefined;
                readonly webhookUrl?: string | null | undefined;
                readonly webhookSecret?: string | null | undefined;
            };
            readonly withResponse?: WithResponse | undefined;
        }) => Effect.Effect<WithResponse extends true ? [import("./index.js").Trigger, import("@effect/platform/HttpClientResponse").HttpClientResponse] : import("./index.js").Trigger, import("./index.js").ValidationError | import("./index.js").BadRequest | import("./index.js").Unauthorized | import("./index.js").Forbidden | import("./index.js").NotFound | import("./index.js").PayloadTooLarge | import("./index.js").InternalError | import("./index.js").ServiceUnavailable | import("@effect/platform/HttpClientError").HttpClientError | import("@effect/platform/HttpApiError").HttpApiDecodeError | import("effect/ParseResult").ParseError, never>;
        readonly get: <WithResponse extends boolean = false>(request: {
            readonly path: {
                readonly id: string;
            };
            readonly withResponse?: WithResponse | undefined;
        }) => Effect.Effect<WithResponse extends true ? [import("./index.js").Trigger, import("@effect/platform/HttpClientResponse").HttpClientResponse] : import("./index.js").Trigger, import("./index.js").ValidationError | import("./index.js").BadRequest | import("./index.js").Unauthorized | import("./index.js").Forbidden | import("./index.js").NotFound | import("./index.js").PayloadTooLarge | import("./index.js").InternalError | import("./index.js").ServiceUnavailable | import("@effect/platform/HttpClientError").HttpClientError | import("@effect/platform/HttpApiError").HttpApiDecodeError | import("effect/ParseResult").ParseError, never>;
        readonly update: <WithResponse extends boolean = false>(request: {
            readonly path: {
                readonly id: string;
            };
            readonly payload: {
                readonly description?: string | null | undefined;
                readonly name?: string | undefined;
                readonly workerId?: string | null | undefined;
                readonly input?: unknown;
                readonly timeoutSeconds?: number | undefined;
                readonly heartbeatTimeoutSeconds?: number | undefined;
                readonly maxRetries?: number | undefined;
                readonly webhookUrl?: string | null | undefined;
                readonly webhookSecret?: string | null | undefined;
            };
            readonly withResponse?: WithResponse | undefined;
        }) => Effect.Effect<WithResponse extends true ? [import("./index.js").Trigger, import("@effect/platform/HttpClientResponse").HttpClientResponse] : import("./index.js").Trigger, import("./index.js").ValidationError | import("./index.js").BadRequest | import("./index.js").Unauthorized | import("./index.js").Forbidden | import("./index.js").NotFound | import("./index.js").PayloadTooLarge | import("./index.js").InternalError | import("./index.js").ServiceUnavailable | import("@effect/platform/HttpClientError").HttpClientError | import("@effect/platform/HttpApiError").HttpApiDecodeError | import("effect/ParseResult").ParseError, never>;
        readonly delete: <WithResponse extends boolean = false>(request: {
            readonly path: {
                readonly id: string;
            };
            readonly withResponse?: WithResponse | undefined;
        }) => Effect.Effect<WithResponse extends true ? [void, import("@effect/platform/HttpClientResponse").HttpClientResponse] : void, import("./index.js").ValidationError | import("./index.js").BadRequest | import("./index.js").Unauthorized | import("./index.js").Forbidden | import("./index.js").NotFound | import("./index.js").Conflict | import("./index.js").PayloadTooLarge | import("./index.js").InternalError | import("./index.js").ServiceUnavailable | import("@effect/platform/HttpClientError").HttpClientError | import("@effect/platform/HttpApiError").HttpApiDecodeError | import("effect/ParseResult").ParseError, never>;
        readonly rotateMcpToken: <WithResponse extends boolean = false>(request: {
            readonly path: {
                readonly id: string;
            };
            readonly withResponse?: WithResponse | undefined;
        }) => Effect.Effect<WithResponse extends true ? [{
            readonly mcpToken: string;
        }, import("@effect/platform/HttpClientResponse").HttpClientResponse] : {
            readonly mcpToken: string;
        }, import("./index.js").ValidationError | import("./index.js").BadRequest | import("./index.js").Unauthorized | import("./index.js").Forbidden | import("./index.js").NotFound | import("./index.js").PayloadTooLarge | import("./index.js").InternalError | import("./index.js").ServiceUnavailable | import("@effect/platform/HttpClientError").HttpClientError | import("@effect/platform/HttpApiError").HttpApiDecodeError | import("effect/ParseResult").ParseError, never>;
    };
    readonly workers: {
        readonly register: <WithResponse extends boolean = false>(request: {
            readonly payload: {
                readonly label?: string | undefined;
                readonly registrationToken: string;
            };
            readonly withResponse?: WithResponse | undefined;
        }) => Effect.Effect<WithResponse extends true ? [{
            readonly token: string;
            readonly worker: import("./Workers/Api.js").Worker;
        }, import("@effect/platform/HttpClientResponse").HttpClientResponse] : {
            readonly token: string;
            readonly worker: import("./Workers/Api.js").Worker;
        }, import("./index.js").ValidationError | import("./index.js").BadRequest | import("./index.js").Unauthorized | import("./index.js").NotFound | import("./index.js").PayloadTooLarge | import("./index.js").InternalError | import("./index.js").ServiceUnavailable | import("@effect/platform/HttpClientError").HttpClientError | import("@effect/platform/HttpApiError").HttpApiDecodeError | import("effect/ParseResult").ParseError, never>;
        readonly listEnvironment: <WithResponse extends boolean = false>(request: {
            readonly path: {
                readonly envId: string;
            };
            readonly urlParams: {
                readonly status?: "online" | "offline" | undefined;
                readonly limit?: number | undefined;
                readonly cursor?: string | undefined;
            };
            readonly withResponse?: WithResponse | undefined;
        }) => Effect.Effect<WithResponse extends true ? [{
            readonly items: readonly import("./Workers/Api.js").Worker[];
            readonly nextCursor: string | null;
        }, import("@effect/platform/HttpClientResponse").HttpClientResponse] : {
            readonly items: readonly import("./Workers/Api.js").Worker[];
            readonly nextCursor: string | null;
        }, import("./index.js").ValidationError | import("./index.js").BadRequest | import("./index.js").Unauthorized | import("./index.js").Forbidden | import("./index.js").NotFound | import("./index.js").PayloadTooLarge | import("./index.js").InternalError | import("./index.js").ServiceUnavailable | import("@effect/platform/HttpClientError").HttpClientError | import("@effect/platform/HttpApiError").HttpApiDecodeError | import("effect/ParseResult").ParseError, never>;
        readonly listWorkspace: <WithResponse extends boolean = false>(request: {
            readonly path: {
                readonly wsId: string;
            };
            readonly urlParams: {
                readonly status?: "online" | "offline" | undefined;
                readonly limit?: number | undefined;
                readonly cursor?: string | undefined;
            };
            readonly withResponse?: WithResponse | undefined;
        }) => Effect.Effect<WithResponse extends true ? [{
            readonly items: readonly import("./Workers/Api.js").Worker[];
            readonly nextCursor: string | null;
        }, import("@effect/platform/HttpClientResponse").HttpClientResponse] : {
            readonly items: readonly import("./Workers/Api.js").Worker[];
            readonly nextCursor: string | null;
        }, import("./index.js").ValidationError | import("./index.js").BadRequest | import("./index.js").Unauthorized | import("./index.js").Forbidden | import("./index.js").NotFound | import("./index.js").PayloadTooLarge | import("./index.js").InternalError | import("./index.js").ServiceUnavailable | import("@effect/platform/HttpClientError").HttpClientError | import("@effect/platform/HttpApiError").HttpApiDecodeError | import("effect/ParseResult").ParseError, never>;
        readonly updateLabel: <WithResponse extends boolean = false>(request: {
            readonly path: {
                readonly wsId: string;
                readonly workerId: string;
            };
            readonly payload: {
                readonly label: string;
            };
            readonly withResponse?: WithResponse | undefined;
        }) => Effect.Effect<WithResponse extends true ? [import("./Workers/Api.js").Worker, import("@effect/platform/HttpClientResponse").HttpClientResponse] : import("./Workers/Api.js").Worker, import("./index.js").ValidationError | import("./index.js").BadRequest | import("./index.js").Unauthorized | import("./index.js").Forbidden | import("./index.js").NotFound | import("./index.js").PayloadTooLarge | import("./index.js").InternalError | import("./index.js").ServiceUnavailable | import("@effect/platform/HttpClientError").HttpClientError | import("@effect/platform/HttpApiError").HttpApiDecodeError | import("effect/ParseResult").ParseError, never>;
    };
    readonly workerProtocol: {
        readonly me: <WithResponse extends boolean = false>(request: void | {
            readonly withResponse?: WithResponse | undefined;
        }) => Effect.Effect<WithResponse extends true ? [import("./Workers/Api.js").Worker, import("@effect/platform/HttpClientResponse").HttpClientResponse] : import("./Workers/Api.js").Worker, import("./index.js").ValidationError | import("./index.js").BadRequest | import("./index.js").Unauthorized | import("./index.js").NotFound | import("./index.js").PayloadTooLarge | import("./index.js").InternalError | import("./index.js").ServiceUnavailable | import("@effect/platform/HttpClientError").HttpClientError | import("@effect/platform/HttpApiError").HttpApiDecodeError | import("effect/ParseResult").ParseError, never>;
        readonly poll: <WithResponse extends boolean = false>(request: {
            readonly path: {
                readonly id: string;
            };
            readonly urlParams: {
                readonly max?: number | undefined;
                readonly wait?: number | undefined;
                readonly claim?: "true" | "false" | undefined;
                readonly start?: "true" | "false" | undefined;
            };
            readonly withResponse?: WithResponse | undefined;
        }) => Effect.Effect<WithResponse extends true ? [{
            readonly runs: readonly {
                readonly status: "queued" | "assigned" | "claimed" | "running" | "succeeded" | "failed" | "timed_out";
                readonly id: string;
                readonly createdAt: Date;
                readonly environmentId: string;
                readonly triggerId: string;
                readonly attempt: number;
                readonly retryOfRunId: string | null;
                readonly workerId: string | null;
                readonly input: unknown;
                readonly durationMs: number | null;
                readonly shortMessage: string | null;
                readonly errorMessage: string | null;
                readonly costUsd: string | null;
                readonly faultClass: "infra" | "client" | "none" | null;
                readonly assignedAt: Date | null;
                readonly claimedAt: Date | null;
                readonly startedAt: Date | null;
                readonly lastHeartbeatAt: Date | null;
                readonly endedAt: Date | null;
                readonly trigger: {
                    readonly id: string;
                    readonly name: string;
                    readonly input: unknown;
                    readonly timeoutSeconds: number;
                    readonly heartbeatTimeoutSeconds: number;
                };
            }[];
        }, import("@effect/platform/HttpClientResponse").HttpClientResponse] : {
            readonly runs: readonly {
                readonly status: "queued" | "assigned" | "claimed" | "running" | "succeeded" | "failed" | "timed_out";
                readonly id: string;
                readonly createdAt: Date;
                readonly environmentId: string;
                readonly triggerId: string;
                readonly attempt: number;
                readonly retryOfRunId: string | null;
                readonly workerId: string | null;
                readonly input: unknown;
                readonly durationMs: number | null;
                readonly shortMessage: string | null;
                readonly errorMessage: string | null;
                readonly costUsd: string | null;
                readonly faultClass: "infra" | "client" | "none" | null;
                readonly assignedAt: Date | null;
                readonly claimedAt: Date | null;
                readonly startedAt: Date | null;
                readonly lastHeartbeatAt: Date | null;
                readonly endedAt: Date | null;
                readonly trigger: {
                    readonly id: string;
                    readonly name: string;
                    readonly input: unknown;
                    readonly timeoutSeconds: number;
                    readonly heartbeatTimeoutSeconds: number;
                };
            }[];
        }, import("./index.js").ValidationError | import("./index.js").BadRequest | import("./index.js").Unauthorized | import("./index.js").NotFound | import("./index.js").PayloadTooLarge | import("./index.js").InternalError | import("./index.js").ServiceUnavailable | import("@effect/platform/HttpClientError").HttpClientError | import("@effect/platform/HttpApiError").HttpApiDecodeError | import("effect/ParseResult").ParseError, never>;
        readonly claim: <WithResponse extends boolean = false>(request: {
            readonly path: {
                readonly id: string;
                readonly runId: string;
            };
            readonly withResponse?: WithResponse | undefined;
        }) => Effect.Effect<WithResponse extends true ? [{
            readonly run: {
                readonly status: "queued" | "assigned" | "claimed" | "running" | "succeeded" | "failed" | "timed_out";
                readonly id: string;
                readonly createdAt: Date;
                readonly environmentId: string;
                readonly triggerId: string;
                readonly attempt: number;
                readonly retryOfRunId: string | null;
                readonly workerId: string | null;
                readonly input: unknown;
                readonly durationMs: number | null;
                readonly shortMessage: string | null;
                readonly errorMessage: string | null;
                readonly costUsd: string | null;
                readonly faultClass: "infra" | "client" | "none" | null;
                readonly assignedAt: Date | null;
                readonly claimedAt: Date | null;
                readonly startedAt: Date | null;
                readonly lastHeartbeatAt: Date | null;
                readonly endedAt: Date | null;
            };
        }, import("@effect/platform/HttpClientResponse").HttpClientResponse] : {
            readonly run: {
                readonly status: "queued" | "assigned" | "claimed" | "running" | "succeeded" | "failed" | "timed_out";
                readonly id: string;
                readonly createdAt: Date;
                readonly environmentId: string;
                readonly triggerId: string;
                readonly attempt: number;
                readonly retryOfRunId: string | null;
                readonly workerId: string | null;
                readonly input: unknown;
                readonly durationMs: number | null;
                readonly shortMessage: string | null;
                readonly errorMessage: string | null;
                readonly costUsd: string | null;
                readonly faultClass: "infra" | "client" | "none" | null;
                readonly assignedAt: Date | null;
                readonly claimedAt: Date | null;
                readonly startedAt: Date | null;
                readonly lastHeartbeatAt: Date | null;
                readonly endedAt: Date | null;
            };
        }, import("./index.js").ValidationError | import("./index.js").BadRequest | import("./index.js").Unauthorized | import("./index.js").NotFound | import("./index.js").Conflict | import("./index.js").PayloadTooLarge | import("./index.js").InternalError | import("./index.js").ServiceUnavailable | import("@effect/platform/HttpClientError").HttpClientError | import("@effect/platform/HttpApiError").HttpApiDecodeError | import("effect/ParseResult").ParseError, never>;
        readonly start: <WithResponse extends boolean = false>(request: {
            readonly path: {
                readonly id: string;
                readonly runId: string;
            };
            readonly withResponse?: WithResponse | undefined;
        }) => Effect.Effect<WithResponse extends true ? [{
            readonly run: {
                readonly status: "queued" | "assigned" | "claimed" | "running" | "succeeded" | "failed" | "timed_out";
                readonly id: string;
                readonly createdAt: Date;
                readonly environmentId: string;
                readonly triggerId: string;
                readonly attempt: number;
                readonly retryOfRunId: string | null;
                readonly workerId: string | null;
                readonly input: unknown;
                readonly durationMs: number | null;
                readonly shortMessage: string | null;
                readonly errorMessage: string | null;
                readonly costUsd: string | null;
                readonly faultClass: "infra" | "client" | "none" | null;
                readonly assignedAt: Date | null;
                readonly claimedAt: Date | null;
                readonly startedAt: Date | null;
                readonly lastHeartbeatAt: Date | null;
                readonly endedAt: Date | null;
            };
        }, import("@effect/platform/HttpClientResponse").HttpClientResponse] : {
            readonly run: {
                readonly status: "queued" | "assigned" | "claimed" | "running" | "succeeded" | "failed" | "timed_out";
                readonly id: string;
                readonly createdAt: Date;
                readonly environmentId: string;
                readonly triggerId: string;
                readonly attempt: number;
                readonly retryOfRunId: string | null;
                readonly workerId: string | null;
                readonly input: unknown;
                readonly durationMs: number | null;
                readonly shortMessage: string | null;
                readonly errorMessage: string | null;
                readonly costUsd: string | null;
                readonly faultClass: "infra" | "client" | "none" | null;
                readonly assignedAt: Date | null;
                readonly claimedAt: Date | null;
                readonly startedAt: Date | null;
                readonly lastHeartbeatAt: Date | null;
                readonly endedAt: Date | null;
            };
        }, import("./index.js").ValidationError | import("./index.js").BadRequest | import("./index.js").Unauthorized | import("./index.js").NotFound | import("./index.js").Conflict | import("./index.js").PayloadTooLarge | import("./index.js").InternalError | import("./index.js").ServiceUnavailable | import("@effect/platform/HttpClientError").HttpClientError | import("@effect/platform/HttpApiError").HttpApiDecodeError | import("effect/ParseResult").ParseError, never>;
        readonly heartbeat: <WithResponse extends boolean = false>(request: {
            readonly path: {
                readonly id: string;
                readonly runId: string;
            };
            readonly withResponse?: WithResponse | undefined;
        }) => Effect.Effect<WithResponse extends true ? [{
            readonly run: {
                readonly status: "queued" | "assigned" | "claimed" | "running" | "succeeded" | "failed" | "timed_out";
                readonly id: string;
                readonly createdAt: Date;
                readonly environmentId: string;
                readonly triggerId: string;
                readonly attempt: number;
                readonly retryOfRunId: string | null;
                readonly workerId: string | null;
                readonly input: unknown;
                readonly durationMs: number | null;
                readonly shortMessage: string | null;
                readonly errorMessage: string | null;
                readonly costUsd: string | null;
                readonly faultClass: "infra" | "client" | "none" | null;
                readonly assignedAt: Date | null;
                readonly claimedAt: Date | null;
                readonly startedAt: Date | null;
                readonly lastHeartbeatAt: Date | null;
                readonly endedAt: Date | null;
            };
        }, import("@effect/platform/HttpClientResponse").HttpClientResponse] : {
            readonly run: {
                readonly status: "queued" | "assigned" | "claimed" | "running" | "succeeded" | "failed" | "timed_out";
                readonly id: string;
                readonly createdAt: Date;
                readonly environmentId: string;
                readonly triggerId: string;
                readonly attempt: number;
                readonly retryOfRunId: string | null;
                readonly workerId: string | null;
                readonly input: unknown;
                readonly durationMs: number | null;
                readonly shortMessage: string | null;
                readonly errorMessage: string | null;
                readonly costUsd: string | null;
                readonly faultClass: "infra" | "client" | "none" | null;
                readonly assignedAt: Date | null;
                readonly claimedAt: Date | null;
                readonly startedAt: Date | null;
                readonly lastHeartbeatAt: Date | null;
                readonly endedAt: Date | null;
            };
        }, import("./index.js").ValidationError | import("./index.js").BadRequest | import("./index.js").Unauthorized | import("./index.js").NotFound | import("./index.js").Conflict | import("./index.js").PayloadTooLarge | import("./index.js").InternalError | import("./index.js").ServiceUnavailable | import("@effect/platform/HttpClientError").HttpClientError | import("@effect/platform/HttpApiError").HttpApiDecodeError | import("effect/ParseResult").ParseError, never>;
        readonly complete: <WithResponse extends boolean = false>(request: {
            readonly path: {
                readonly id: string;
                readonly runId: string;
            };
            readonly payload: {
                readonly status: "succeeded" | "failed";
                readonly costUsd?: string | undefined;
                readonly faultClass?: "infra" | "client" | "none" | undefined;
                readonly stdout?: string | undefined;
                readonly stderr?: string | undefined;
            };
            readonly withResponse?: WithResponse | undefined;
        }) => Effect.Effect<WithResponse extends true ? [{
            readonly run: {
                readonly status: "queued" | "assigned" | "claimed" | "running" | "succeeded" | "failed" | "timed_out";
                readonly id: string;
                readonly createdAt: Date;
                readonly environmentId: string;
                readonly triggerId: string;
                readonly attempt: number;
                readonly retryOfRunId: string | null;
                readonly workerId: string | null;
                readonly input: unknown;
                readonly durationMs: number | null;
                readonly shortMessage: string | null;
                readonly errorMessage: string | null;
                readonly costUsd: string | null;
                readonly faultClass: "infra" | "client" | "none" | null;
                readonly assignedAt: Date | null;
                readonly claimedAt: Date | null;
                readonly startedAt: Date | null;
                readonly lastHeartbeatAt: Date | null;
                readonly endedAt: Date | null;
            };
        }, import("@effect/platform/HttpClientResponse").HttpClientResponse] : {
            readonly run: {
                readonly status: "queued" | "assigned" | "claimed" | "running" | "succeeded" | "failed" | "timed_out";
                readonly id: string;
                readonly createdAt: Date;
                readonly environmentId: string;
                readonly triggerId: string;
                readonly attempt: number;
                readonly retryOfRunId: string | null;
                readonly workerId: string | null;
                readonly input: unknown;
                readonly durationMs: number | null;
                readonly shortMessage: string | null;
                readonly errorMessage: string | null;
                readonly costUsd: string | null;
                readonly faultClass: "infra" | "client" | "none" | null;
                readonly assignedAt: Date | null;
                readonly claimedAt: Date | null;
                readonly startedAt: Date | null;
                readonly lastHeartbeatAt: Date | null;
                readonly endedAt: Date | null;
            };
        }, import("./index.js").ValidationError | import("./index.js").BadRequest | import("./index.js").Unauthorized | import("./index.js").NotFound | import("./index.js").Conflict | import("./index.js").PayloadTooLarge | import("./index.js").InternalError | import("./index.js").ServiceUnavailable | import("@effect/platform/HttpClientError").HttpClientError | import("@effect/platform/HttpApiError").HttpApiDecodeError | import("effect/ParseResult").ParseError, never>;
        readonly completeMany: <WithResponse extends boolean = false>(request: {
            readonly path: {
                readonly id: string;
            };
            readonly payload: {
                readonly runs: readonly {
                    readonly status: "succeeded" | "failed";
                    readonly costUsd?: string | undefined;
                    readonly faultClass?: "infra" | "client" | "none" | undefined;
                    readonly runId: string;
                    readonly stdout?: string | undefined;
                    readonly stderr?: string | undefined;
                }[];
            };
            readonly withResponse?: WithResponse | undefined;
        }) => Effect.Effect<WithResponse extends true ? [{
            readonly runs: readonly {
                readonly status: "queued" | "assigned" | "claimed" | "running" | "succeeded" | "failed" | "timed_out";
                readonly id: string;
                readonly createdAt: Date;
                readonly environmentId: string;
                readonly triggerId: string;
                readonly attempt: number;
                readonly retryOfRunId: string | null;
                readonly workerId: string | null;
                readonly input: unknown;
                readonly durationMs: number | null;
                readonly shortMessage: string | null;
                readonly errorMessage: string | null;
                readonly costUsd: string | null;
                readonly faultClass: "infra" | "client" | "none" | null;
                readonly assignedAt: Date | null;
                readonly claimedAt: Date | null;
                readonly startedAt: Date | null;
                readonly lastHeartbeatAt: Date | null;
                readonly endedAt: Date | null;
            }[];
            readonly rejected: readonly {
                readonly error: string;
                readonly status: 404 | 409;
                readonly runId: string;
            }[];
        }, import("@effect/platform/HttpClientResponse").HttpClientResponse] : {
            readonly runs: readonly {
                readonly status: "queued" | "assigned" | "claimed" | "running" | "succeeded" | "failed" | "timed_out";
                readonly id: string;
                readonly createdAt: Date;
                readonly environmentId: string;
                readonly triggerId: string;
                readonly attempt: number;
                readonly retryOfRunId: string | null;
                readonly workerId: string | null;
                readonly input: unknown;
                readonly durationMs: number | null;
                readonly shortMessage: string | null;
                readonly errorMessage: string | null;
                readonly costUsd: string | null;
                readonly faultClass: "infra" | "client" | "none" | null;
                readonly assignedAt: Date | null;
                readonly claimedAt: Date | null;
                readonly startedAt: Date | null;
                readonly lastHeartbeatAt: Date | null;
                readonly endedAt: Date | null;
            }[];
            readonly rejected: readonly {
                readonly error: string;
                readonly status: 404 | 409;
                readonly runId: string;
            }[];
        }, import("./index.js").ValidationError | import("./index.js").BadRequest | import("./index.js").Unauthorized | import("./index.js").NotFound | import("./index.js").PayloadTooLarge | import("./index.js").InternalError | import("./index.js").ServiceUnavailable | import("@effect/platform/HttpClientError").HttpClientError | import("@effect/platform/HttpApiError").HttpApiDecodeError | import("effect/ParseResult").ParseError, never>;
    };
    readonly dashboard: {
        readonly overview: <WithResponse extends boolean = false>(request: {
            readonly path: {
                readonly envId: string;
            };
            readonly withResponse?: WithResponse | undefined;
        }) => Effect.Effect<WithResponse extends true ? [import("./Dashboard/Api.js").Overview, import("@effect/platform/HttpClientResponse").HttpClientResponse] : import("./Dashboard/Api.js").Overview, import("./index.js").ValidationError | import("./index.js").BadRequest | import("./index.js").Unauthorized | import("./index.js").Forbidden | import("./index.js").NotFound | import("./index.js").PayloadTooLarge | import("./index.js").InternalError | import("./index.js").ServiceUnavailable | import("@effect/platform/HttpClientError").HttpClientError | import("@effect/platform/HttpApiError").HttpApiDecodeError | import("effect/ParseResult").ParseError, never>;
        readonly runSeries: <WithResponse extends boolean = false>(request: {
            readonly path: {
                readonly envId: string;
            };
            readonly urlParams: {
                readonly from?: Date | undefined;
                readonly to?: Date | undefined;
                readonly bucket?: "minute" | "hour" | "day" | undefined;
            };
            readonly withResponse?: WithResponse | undefined;
        }) => Effect.Effect<WithResponse extends true ? [{
            readonly items: readonly {
                readonly queued: number;
                readonly succeeded: number;
                readonly failed: number;
                readonly cancelled: number;
                readonly bucketStart: Date;
                readonly timedOut: number;
                readonly p50DurationMs: number | null;
                readonly p95DurationMs: number | null;
            }[];
        }, import("@effect/platform/HttpClientResponse").HttpClientResponse] : {
            readonly items: readonly {
                readonly queued: number;
                readonly succeeded: number;
                readonly failed: number;
                readonly cancelled: number;
                readonly bucketStart: Date;
                readonly timedOut: number;
                readonly p50DurationMs: number | null;
                readonly p95DurationMs: number | null;
            }[];
        }, import("./index.js").ValidationError | import("./index.js").BadRequest | import("./index.js").Unauthorized | import("./index.js").Forbidden | import("./index.js").NotFound | import("./index.js").PayloadTooLarge | import("./index.js").InternalError | import("./index.js").ServiceUnavailable | import("@effect/platform/HttpClientError").HttpClientError | import("@effect/platform/HttpApiError").HttpApiDecodeError | import("effect/ParseResult").ParseError, never>;
    };
    readonly mcp: {
        readonly call: <WithResponse extends boolean = false>(request: {
            readonly payload: {
                readonly id?: string | number | undefined;
                readonly method: string;
                readonly jsonrpc: "2.0";
                readonly params?: {
                    readonly [x: string]: unknown;
                } | undefined;
            };
            readonly withResponse?: WithResponse | undefined;
        }) => Effect.Effect<WithResponse extends true ? [void | {
            readonly id: string | number;
            readonly jsonrpc: "2.0";
            readonly result: {
                readonly [x: string]: unknown;
            };
        } | {
            readonly error: {
                readonly message: string;
                readonly code: number;
                readonly data?: unknown;
            };
            readonly id: string | number | null;
            readonly jsonrpc: "2.0";
        }, import("@effect/platform/HttpClientResponse").HttpClientResponse] : void | {
            readonly id: string | number;
            readonly jsonrpc: "2.0";
            readonly result: {
                readonly [x: string]: unknown;
            };
        } | {
            readonly error: {
                readonly message: string;
                readonly code: number;
                readonly data?: unknown;
            };
            readonly id: string | number | null;
            readonly jsonrpc: "2.0";
        }, import("./index.js").ValidationError | import("./index.js").BadRequest | import("./index.js").Unauthorized | import("./index.js").Forbidden | import("./index.js").NotFound | import("./index.js").PayloadTooLarge | import("./index.js").InternalError | import("./index.js").ServiceUnavailable | import("@effect/platform/HttpClientError").HttpClientError | {
            readonly error: {
                readonly message: string;
                readonly code: number;
                readonly data?: unknown;
            };
            readonly id: string | number | null;
            readonly jsonrpc: "2.0";
        } | import("@effect/platform/HttpApiError").HttpApiDecodeError | import("effect/ParseResult").ParseError, never>;
        readonly stream: <WithResponse extends boolean = false>(request: void | {
            readonly withResponse?: WithResponse | undefined;
        }) => Effect.Effect<WithResponse extends true ? [void, import("@effect/platform/HttpClientResponse").HttpClientResponse] : void, import("./index.js").ValidationError | import("./index.js").BadRequest | import("./index.js").Unauthorized | import("./index.js").NotFound | import("./index.js").PayloadTooLarge | import("./index.js").InternalError | import("./index.js").ServiceUnavailable | import("@effect/platform/HttpClientError").HttpClientError | import("./Mcp/Api.js").MethodNotAllowed | import("@effect/platform/HttpApiError").HttpApiDecodeError | import("effect/ParseResult").ParseError, never>;
    };
}, never, HttpClient.HttpClient>;
//# sourceMappingURL=Client.d.ts.map