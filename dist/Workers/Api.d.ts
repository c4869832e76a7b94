import { HttpApiEndpoint, HttpApiGroup } from "@effect/platform";
import * as Schema from "effect/Schema";
import { Authentication } from "../Auth/Security.js";
import { Forbidden, NotFound, Unauthorized } from "../Domain/Errors.js";
export declare const WorkerStatus: Schema.Literal<["online", "offline"]>;
declare const Worker_base: Schema.Class<Worker, {
    id: typeof Schema.UUID;
    environmentId: typeof Schema.UUID;
    workspaceId: typeof Schema.UUID;
    label: typeof Schema.String;
    status: Schema.Literal<["online", "offline"]>;
    lastSeenAt: typeof Schema.Date;
    createdAt: typeof Schema.Date;
}, Schema.Struct.Encoded<{
    id: typeof Schema.UUID;
    environmentId: typeof Schema.UUID;
    workspaceId: typeof Schema.UUID;
    label: typeof Schema.String;
    status: Schema.Literal<["online", "offline"]>;
    lastSeenAt: typeof Schema.Date;
    createdAt: typeof Schema.Date;
}>, never, {
    readonly status: "online" | "offline";
} & {
    readonly id: string;
} & {
    readonly createdAt: Date;
} & {
    readonly workspaceId: string;
} & {
    readonly environmentId: string;
} & {
    readonly label: string;
} & {
    readonly lastSeenAt: Date;
}, {}, {}>;
/** `status` is derived: `online` while the worker was seen within WORKER_OFFLINE_AFTER_SECONDS. */
export declare class Worker extends Worker_base {
}
export declare const Label: Schema.transform<typeof Schema.Trim, Schema.filter<Schema.filter<Schema.filter<typeof Schema.String>>>>;
export declare const RegisterWorker: Schema.Struct<{
    registrationToken: Schema.filter<Schema.filter<typeof Schema.String>>;
    label: Schema.optional<Schema.transform<typeof Schema.Trim, Schema.filter<Schema.filter<Schema.filter<typeof Schema.String>>>>>;
}>;
/** `token` (`wkt_…`) is shown in this response only; the service keeps its SHA-256. */
export declare const Registration: Schema.Struct<{
    worker: typeof Worker;
    token: typeof Schema.String;
}>;
export declare const ListWorkersParams: Schema.Struct<{
    status: Schema.optional<Schema.Literal<["online", "offline"]>>;
    cursor: Schema.optional<typeof Schema.String>;
    limit: Schema.optional<Schema.refine<number, Schema.filter<typeof Schema.NumberFromString>>>;
}>;
declare const WorkersApi_base: HttpApiGroup.HttpApiGroup<"workers", HttpApiEndpoint.HttpApiEndpoint<"register", "POST", never, never, {
    readonly label?: string | undefined;
    readonly registrationToken: string;
}, never, {
    readonly token: string;
    readonly worker: Worker;
}, Unauthorized, never, never> | HttpApiEndpoint.HttpApiEndpoint<"listEnvironment", "GET", {
    readonly envId: string;
}, {
    readonly status?: "online" | "offline" | undefined;
    readonly limit?: number | undefined;
    readonly cursor?: string | undefined;
}, never, never, {
    readonly items: readonly Worker[];
    readonly nextCursor: string | null;
}, Unauthorized | Forbidden | NotFound, Authentication, never> | HttpApiEndpoint.HttpApiEndpoint<"listWorkspace", "GET", {
    readonly wsId: string;
}, {
    readonly status?: "online" | "offline" | undefined;
    readonly limit?: number | undefined;
    readonly cursor?: string | undefined;
}, never, never, {
    readonly items: readonly Worker[];
    readonly nextCursor: string | null;
}, Unauthorized | Forbidden | NotFound, Authentication, never> | HttpApiEndpoint.HttpApiEndpoint<"updateLabel", "PATCH", {
    readonly wsId: string;
    readonly workerId: string;
}, never, {
    readonly label: string;
}, never, Worker, Unauthorized | Forbidden | NotFound, Authentication, never>, never, never, false>;
export declare class WorkersApi extends WorkersApi_base {
}
export {};
//# sourceMappingURL=Api.d.ts.map