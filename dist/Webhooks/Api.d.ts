import { HttpApiEndpoint, HttpApiGroup } from "@effect/platform";
import * as Schema from "effect/Schema";
import { Authentication } from "../Auth/Security.js";
import { Forbidden, NotFound } from "../Domain/Errors.js";
declare const WebhookDelivery_base: Schema.Class<WebhookDelivery, {
    id: typeof Schema.UUID;
    runId: typeof Schema.UUID;
    triggerId: typeof Schema.UUID;
    url: typeof Schema.String;
    outcome: Schema.Literal<["delivered", "failed"]>;
    statusCode: Schema.NullOr<typeof Schema.Int>;
    responseBody: Schema.NullOr<typeof Schema.String>;
    attemptCount: typeof Schema.Int;
    errorMessage: Schema.NullOr<typeof Schema.String>;
    createdAt: typeof Schema.Date;
}, Schema.Struct.Encoded<{
    id: typeof Schema.UUID;
    runId: typeof Schema.UUID;
    triggerId: typeof Schema.UUID;
    url: typeof Schema.String;
    outcome: Schema.Literal<["delivered", "failed"]>;
    statusCode: Schema.NullOr<typeof Schema.Int>;
    responseBody: Schema.NullOr<typeof Schema.String>;
    attemptCount: typeof Schema.Int;
    errorMessage: Schema.NullOr<typeof Schema.String>;
    createdAt: typeof Schema.Date;
}>, never, {
    readonly id: string;
} & {
    readonly createdAt: Date;
} & {
    readonly triggerId: string;
} & {
    readonly errorMessage: string | null;
} & {
    readonly outcome: "failed" | "delivered";
} & {
    readonly url: string;
} & {
    readonly runId: string;
} & {
    readonly attemptCount: number;
} & {
    readonly statusCode: number | null;
} & {
    readonly responseBody: string | null;
}, {}, {}>;
/** One run's final delivery outcome: the last attempt's status code, body (≤ 1024 characters) and error. */
export declare class WebhookDelivery extends WebhookDelivery_base {
}
export declare const ListDeliveriesParams: Schema.Struct<{
    cursor: Schema.optional<typeof Schema.String>;
    limit: Schema.optional<Schema.refine<number, Schema.filter<typeof Schema.NumberFromString>>>;
}>;
declare const WebhooksApi_base: HttpApiGroup.HttpApiGroup<"webhooks", HttpApiEndpoint.HttpApiEndpoint<"listDeliveries", "GET", {
    readonly id: string;
}, {
    readonly limit?: number | undefined;
    readonly cursor?: string | undefined;
}, never, never, {
    readonly items: readonly WebhookDelivery[];
    readonly nextCursor: string | null;
}, Forbidden | NotFound, never, never>, import("../Domain/Errors.js").Unauthorized | Forbidden, Authentication, false>;
export declare class WebhooksApi extends WebhooksApi_base {
}
export {};
//# sourceMappingURL=Api.d.ts.map