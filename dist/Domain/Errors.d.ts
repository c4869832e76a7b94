import * as Schema from "effect/Schema";
declare const ValidationDetails_base: Schema.Class<ValidationDetails, {
    fieldErrors: Schema.Record$<typeof Schema.String, Schema.Array$<typeof Schema.String>>;
    formErrors: Schema.Array$<typeof Schema.String>;
}, Schema.Struct.Encoded<{
    fieldErrors: Schema.Record$<typeof Schema.String, Schema.Array$<typeof Schema.String>>;
    formErrors: Schema.Array$<typeof Schema.String>;
}>, never, {
    readonly fieldErrors: {
        readonly [x: string]: readonly string[];
    };
} & {
    readonly formErrors: readonly string[];
}, {}, {}>;
export declare class ValidationDetails extends ValidationDetails_base {
}
declare const ValidationError_base: Schema.Class<ValidationError, {
    error: typeof Schema.String;
    details: typeof ValidationDetails;
}, Schema.Struct.Encoded<{
    error: typeof Schema.String;
    details: typeof ValidationDetails;
}>, never, {
    readonly error: string;
} & {
    readonly details: ValidationDetails;
}, {}, {}>;
export declare class ValidationError extends ValidationError_base {
    static fields_(fieldErrors: Record<string, ReadonlyArray<string>>, formErrors?: ReadonlyArray<string>): ValidationError;
    /** A 400 naming one field. */
    static field(field: string, message: string): ValidationError;
}
declare const BadRequest_base: Schema.Class<BadRequest, {
    error: typeof Schema.String;
}, Schema.Struct.Encoded<{
    error: typeof Schema.String;
}>, never, {
    readonly error: string;
}, {}, {}>;
export declare class BadRequest extends BadRequest_base {
}
declare const Unauthorized_base: Schema.Class<Unauthorized, {
    error: typeof Schema.String;
}, Schema.Struct.Encoded<{
    error: typeof Schema.String;
}>, never, {
    readonly error: string;
}, {}, {}>;
export declare class Unauthorized extends Unauthorized_base {
    static readonly default: Unauthorized;
}
declare const Forbidden_base: Schema.Class<Forbidden, {
    error: typeof Schema.String;
}, Schema.Struct.Encoded<{
    error: typeof Schema.String;
}>, never, {
    readonly error: string;
}, {}, {}>;
export declare class Forbidden extends Forbidden_base {
    static readonly role: Forbidden;
}
declare const NotFound_base: Schema.Class<NotFound, {
    error: typeof Schema.String;
}, Schema.Struct.Encoded<{
    error: typeof Schema.String;
}>, never, {
    readonly error: string;
}, {}, {}>;
export declare class NotFound extends NotFound_base {
    static of(what: string): NotFound;
}
declare const Conflict_base: Schema.Class<Conflict, {
    error: typeof Schema.String;
}, Schema.Struct.Encoded<{
    error: typeof Schema.String;
}>, never, {
    readonly error: string;
}, {}, {}>;
export declare class Conflict extends Conflict_base {
}
declare const PayloadTooLarge_base: Schema.Class<PayloadTooLarge, {
    error: typeof Schema.String;
}, Schema.Struct.Encoded<{
    error: typeof Schema.String;
}>, never, {
    readonly error: string;
}, {}, {}>;
export declare class PayloadTooLarge extends PayloadTooLarge_base {
}
declare const TooManyRequests_base: Schema.Class<TooManyRequests, {
    error: typeof Schema.String;
}, Schema.Struct.Encoded<{
    error: typeof Schema.String;
}>, never, {
    readonly error: string;
}, {}, {}>;
export declare class TooManyRequests extends TooManyRequests_base {
}
declare const InternalError_base: Schema.Class<InternalError, {
    error: typeof Schema.String;
}, Schema.Struct.Encoded<{
    error: typeof Schema.String;
}>, never, {
    readonly error: string;
}, {}, {}>;
export declare class InternalError extends InternalError_base {
    static readonly default: InternalError;
}
declare const ServiceUnavailable_base: Schema.Class<ServiceUnavailable, {
    error: typeof Schema.String;
}, Schema.Struct.Encoded<{
    error: typeof Schema.String;
}>, never, {
    readonly error: string;
}, {}, {}>;
export declare class ServiceUnavailable extends ServiceUnavailable_base {
    static readonly default: ServiceUnavailable;
}
/** Every error class, for rendering responses by class (see Http/ErrorMiddleware). */
export declare const errorClasses: readonly [typeof ValidationError, typeof BadRequest, typeof Unauthorized, typeof Forbidden, typeof NotFound, typeof Conflict, typeof PayloadTooLarge, typeof TooManyRequests, typeof InternalError, typeof ServiceUnavailable];
export {};
//# sourceMappingURL=Errors.d.ts.map