import * as Duration from "effect/Duration";
import * as Effect from "effect/Effect";
import type * as Scope from "effect/Scope";
import { AppConfig } from "../Config/AppConfig.js";
import { UrlGuard } from "./UrlGuard.js";
/** One POST of a webhook body, as the delivery loop sees it. */
export interface OutboundRequest {
    readonly url: string;
    readonly body: string;
    /** `sha256=<hex>`, or null when the trigger has no secret (then no signature header is sent). */
    readonly signature: string | null;
}
/**
 * The outcome of one attempt. `Retryable`: 5xx, 408, 429, network errors and
 * timeouts. `Permanent`: every other non-2xx answer (3xx included: redirects
 * are never followed) and URLs the SSRF guard refuses.
 */
export type AttemptResult = {
    readonly _tag: "Delivered";
    readonly statusCode: number;
    readonly responseBody: string;
} | {
    readonly _tag: "Retryable" | "Permanent";
    readonly statusCode: number | null;
    readonly responseBody: string | null;
    readonly error: string;
};
export type Send = (request: OutboundRequest) => Effect.Effect<AttemptResult>;
/** Stored response bodies are cut to this many characters. */
export declare const responseBodyChars = 1024;
export declare const userAgent = "pipeline-trigger-service";
export declare const classify: (statusCode: number) => AttemptResult["_tag"];
/**
 * Text Postgres can store: no NUL (text refuses it), no unpaired surrogate
 * left by the cut, at most 1024 characters.
 */
export declare const truncateBody: (text: string) => string;
export interface SenderOptions {
    /** One attempt (connect, send, read the capped response) must finish within this. */
    readonly attemptTimeout: Duration.DurationInput;
}
/**
 * A sender over keep-alive `node:http`/`node:https` agents (several times the
 * throughput of `fetch` for small signed POSTs). The agents' `lookup` is the
 * SSRF guard, so the address actually connected to is checked on every new
 * socket; IP-literal hosts, which skip `lookup`, are checked before the request.
 */
export declare const make: (options: SenderOptions) => Effect.Effect<Send, never, Scope.Scope | AppConfig | UrlGuard>;
//# sourceMappingURL=Sender.d.ts.map