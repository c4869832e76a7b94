import { HttpApiSchema } from "@effect/platform";
import * as Schema from "effect/Schema";
/**
 * One error class per HTTP meaning. Every body is `{ error }` (validation adds
 * `details`), as the contract requires, so these are plain `Schema.Class`es
 * without a `_tag` in the body.
 */
const body = { error: Schema.String };
export class ValidationDetails extends Schema.Class("ValidationDetails")({
    fieldErrors: Schema.Record({ key: Schema.String, value: Schema.Array(Schema.String) }),
    formErrors: Schema.Array(Schema.String)
}) {
}
export class ValidationError extends Schema.Class("ValidationError")({ error: Schema.String, details: ValidationDetails }, HttpApiSchema.annotations({ status: 400, description: "Validation failure: every invalid field is named" })) {
    static fields_(fieldErrors, formErrors = []) {
        return new ValidationError({
            error: "validation failed",
            details: new ValidationDetails({
                fieldErrors: Object.fromEntries(Object.entries(fieldErrors).map(([k, v]) => [k, [...v]])),
                formErrors: [...formErrors]
            })
        });
    }
    /** A 400 naming one field. */
    static field(field, message) {
        return ValidationError.fields_({ [field]: [message] });
    }
}
export class BadRequest extends Schema.Class("BadRequest")(body, HttpApiSchema.annotations({ status: 400, description: "Malformed request" })) {
}
export class Unauthorized extends Schema.Class("Unauthorized")(body, HttpApiSchema.annotations({ status: 401, description: "Authentication missing or invalid" })) {
    static default = new Unauthorized({ error: "authentication required" });
}
export class Forbidden extends Schema.Class("Forbidden")(body, HttpApiSchema.annotations({ status: 403, description: "Authenticated but lacking the role" })) {
    static role = new Forbidden({ error: "insufficient role" });
}
export class NotFound extends Schema.Class("NotFound")(body, HttpApiSchema.annotations({ status: 404, description: "Not found, or not visible to the caller" })) {
    static of(what) {
        return new NotFound({ error: `${what} not found` });
    }
}
export class Conflict extends Schema.Class("Conflict")(body, HttpApiSchema.annotations({ status: 409, description: "State conflict" })) {
}
export class PayloadTooLarge extends Schema.Class("PayloadTooLarge")(body, HttpApiSchema.annotations({ status: 413, description: "Request body over 1 MiB" })) {
}
export class TooManyRequests extends Schema.Class("TooManyRequests")(body, HttpApiSchema.annotations({ status: 429, description: "Throttled" })) {
}
export class InternalError extends Schema.Class("InternalError")(body, HttpApiSchema.annotations({ status: 500, description: "Internal error; details are only logged" })) {
    static default = new InternalError({ error: "internal error" });
}
export class ServiceUnavailable extends Schema.Class("ServiceUnavailable")(body, HttpApiSchema.annotations({ status: 503, description: "The database is unreachable; retry later" })) {
    static default = new ServiceUnavailable({ error: "service unavailable" });
}
/** Every error class, for rendering responses by class (see Http/ErrorMiddleware). */
export const errorClasses = [
    ValidationError,
    BadRequest,
    Unauthorized,
    Forbidden,
    NotFound,
    Conflict,
    PayloadTooLarge,
    TooManyRequests,
    InternalError,
    ServiceUnavailable
];
//# sourceMappingURL=Errors.js.map