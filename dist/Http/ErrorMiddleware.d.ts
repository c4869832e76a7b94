import { HttpApiError, HttpServerResponse } from "@effect/platform";
import { SqlError } from "@effect/sql/SqlError";
import * as Cause from "effect/Cause";
import * as Effect from "effect/Effect";
import { ValidationError } from "../Domain/Errors.js";
/**
 * Turns the builder's decode errors into our `{error, details}` 400 and every
 * failure the API does not declare (unknown route, malformed JSON, oversized
 * body, defects) into the contract's `{error}` bodies. It runs inside the API's
 * error encoding, so the replacements are encoded like any declared error.
 */
export declare const toValidationError: (error: HttpApiError.HttpApiDecodeError) => ValidationError;
/** True when a SQL failure means "the database is unreachable" rather than a bug. */
export declare const isUnavailable: (error: SqlError) => boolean;
export declare const translateCause: <E>(cause: Cause.Cause<E>) => Effect.Effect<HttpServerResponse.HttpServerResponse, unknown>;
/** Requests whose declared length is over 1 MiB are refused before reading. */
export declare const maxBodyBytes: number;
export declare const layer: import("effect/Layer").Layer<never, never, never>;
//# sourceMappingURL=ErrorMiddleware.d.ts.map