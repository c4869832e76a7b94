import * as HttpApiSchema from "@effect/platform/HttpApiSchema"
import * as Schema from "effect/Schema"
import { aboutField } from "./IssueWording.js"

/**
 * One error class per HTTP meaning. Each is a `Schema.TaggedError`, so a
 * typed-client user can `Effect.catchTag("NotFound", …)` and a handler can
 * `yield*` one. The contract fixes every body as `{error}` (a validation
 * failure adds `details`) with no `_tag`: so the API registers each class's
 * `wire` schema, which decodes that body into the class and encodes the class
 * back to it, rather than the class itself (whose encoding would carry `_tag`).
 */
const ErrorBody = Schema.Struct({ error: Schema.String })

/** What the API registers for an error class: its body on the wire, its instances decoded. */
export type Wire<E> = Schema.Schema<E, { readonly error: string }>

/** The wire form of an `{error}` class: the body, its status and description for the OpenAPI document. */
const wire = <E extends { readonly error: string }>(
  Class: Schema.Schema<E, any> & (new(props: { readonly error: string }) => E),
  identifier: string,
  status: number,
  description: string
): Wire<E> =>
  Schema.transform(ErrorBody.annotations({ identifier, description }), Schema.typeSchema(Class), {
    strict: true,
    decode: (body) => new Class(body),
    encode: (error) => ({ error: error.error })
  }).annotations(HttpApiSchema.annotations({ status, description }))

export class ValidationDetails extends Schema.Class<ValidationDetails>("ValidationDetails")({
  fieldErrors: Schema.Record({ key: Schema.String, value: Schema.Array(Schema.String) }),
  formErrors: Schema.Array(Schema.String)
}) {}

export class ValidationError extends Schema.TaggedError<ValidationError>()("ValidationError", {
  error: Schema.String,
  details: ValidationDetails
}) {
  static readonly wire: Schema.Schema<ValidationError, { readonly error: string; readonly details: typeof ValidationDetails.Encoded }> =
    Schema.transform(
      Schema.Struct({ error: Schema.String, details: ValidationDetails }).annotations({
        identifier: "ValidationError",
        description: "Validation failure: every invalid field is named"
      }),
      Schema.typeSchema(ValidationError),
      {
        strict: true,
        decode: (body) => new ValidationError(body),
        encode: (error) => ({ error: error.error, details: error.details })
      }
    ).annotations(HttpApiSchema.annotations({ status: 400, description: "Validation failure: every invalid field is named" }))

  static fields_(fieldErrors: Record<string, ReadonlyArray<string>>, formErrors: ReadonlyArray<string> = []) {
    return new ValidationError({
      error: "validation failed",
      details: new ValidationDetails({
        fieldErrors: Object.fromEntries(Object.entries(fieldErrors).map(([k, v]) => [k, [...v]])),
        formErrors: [...formErrors]
      })
    })
  }
  /** A 400 naming one field; a predicate message (`must be …`) gets the field's name in front, as schema failures do. */
  static field(field: string, message: string) {
    return ValidationError.fields_({ [field]: [aboutField(field, message)] })
  }
  override get message(): string {
    return this.error
  }
}

export class BadRequest extends Schema.TaggedError<BadRequest>()("BadRequest", ErrorBody.fields) {
  static readonly wire: Wire<BadRequest> = wire(BadRequest, "BadRequest", 400, "Malformed request")
  override get message(): string {
    return this.error
  }
}

export class Unauthorized extends Schema.TaggedError<Unauthorized>()("Unauthorized", ErrorBody.fields) {
  static readonly wire: Wire<Unauthorized> = wire(Unauthorized, "Unauthorized", 401, "Authentication missing or invalid")
  static readonly default = new Unauthorized({ error: "authentication required" })
  override get message(): string {
    return this.error
  }
}

export class Forbidden extends Schema.TaggedError<Forbidden>()("Forbidden", ErrorBody.fields) {
  static readonly wire: Wire<Forbidden> = wire(Forbidden, "Forbidden", 403, "Authenticated but lacking the role")
  static readonly role = new Forbidden({ error: "insufficient role" })
  override get message(): string {
    return this.error
  }
}

export class NotFound extends Schema.TaggedError<NotFound>()("NotFound", ErrorBody.fields) {
  static readonly wire: Wire<NotFound> = wire(NotFound, "NotFound", 404, "Not found, or not visible to the caller")
  static of(what: string) {
    return new NotFound({ error: `${what} not found` })
  }
  override get message(): string {
    return this.error
  }
}

export class Conflict extends Schema.TaggedError<Conflict>()("Conflict", ErrorBody.fields) {
  static readonly wire: Wire<Conflict> = wire(Conflict, "Conflict", 409, "State conflict")
  override get message(): string {
    return this.error
  }
}

export class PayloadTooLarge extends Schema.TaggedError<PayloadTooLarge>()("PayloadTooLarge", ErrorBody.fields) {
  static readonly wire: Wire<PayloadTooLarge> = wire(PayloadTooLarge, "PayloadTooLarge", 413, "Request body over 1 MiB")
  override get message(): string {
    return this.error
  }
}

export class TooManyRequests extends Schema.TaggedError<TooManyRequests>()("TooManyRequests", ErrorBody.fields) {
  static readonly wire: Wire<TooManyRequests> = wire(TooManyRequests, "TooManyRequests", 429, "Throttled")
  override get message(): string {
    return this.error
  }
}

export class InternalError extends Schema.TaggedError<InternalError>()("InternalError", ErrorBody.fields) {
  static readonly wire: Wire<InternalError> = wire(InternalError, "InternalError", 500, "Internal error; details are only logged")
  static readonly default = new InternalError({ error: "internal error" })
  override get message(): string {
    return this.error
  }
}

export class ServiceUnavailable extends Schema.TaggedError<ServiceUnavailable>()("ServiceUnavailable", ErrorBody.fields) {
  static readonly wire: Wire<ServiceUnavailable> = wire(
    ServiceUnavailable,
    "ServiceUnavailable",
    503,
    "The database is unreachable; retry later"
  )
  static readonly default = new ServiceUnavailable({ error: "service unavailable" })
  override get message(): string {
    return this.error
  }
}

/** Any error the API answers with a contract body. */
export type WireError =
  | ValidationError
  | BadRequest
  | Unauthorized
  | Forbidden
  | NotFound
  | Conflict
  | PayloadTooLarge
  | TooManyRequests
  | InternalError
  | ServiceUnavailable

/** Each error's wire schema by its tag, for rendering responses (see Http/ErrorMiddleware). */
export const wireByTag: { readonly [Tag in WireError["_tag"]]: Schema.Schema<Extract<WireError, { _tag: Tag }>, any> } = {
  ValidationError: ValidationError.wire,
  BadRequest: BadRequest.wire,
  Unauthorized: Unauthorized.wire,
  Forbidden: Forbidden.wire,
  NotFound: NotFound.wire,
  Conflict: Conflict.wire,
  PayloadTooLarge: PayloadTooLarge.wire,
  TooManyRequests: TooManyRequests.wire,
  InternalError: InternalError.wire,
  ServiceUnavailable: ServiceUnavailable.wire
}
