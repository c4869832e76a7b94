import * as Schema from "effect/Schema";
/**
 * JSON-RPC 2.0 as MCP uses it: the messages one HTTP POST carries, and the
 * answers. Contract side: the schemas also describe `POST /api/v1/mcp` in the
 * OpenAPI document.
 */
export declare const RequestId: Schema.Union<[typeof Schema.String, typeof Schema.Number]>;
export type RequestId = typeof RequestId.Type;
export declare const codes: {
    readonly parseError: -32700;
    readonly invalidRequest: -32600;
    readonly methodNotFound: -32601;
    readonly invalidParams: -32602;
    readonly internalError: -32603;
};
export declare const ErrorObject: Schema.Struct<{
    code: typeof Schema.Int;
    message: typeof Schema.String;
    data: Schema.optional<typeof Schema.Unknown>;
}>;
/** A request (with `id`) or a notification (without). */
export declare const Message: Schema.Struct<{
    jsonrpc: Schema.Literal<["2.0"]>;
    id: Schema.optional<Schema.Union<[typeof Schema.String, typeof Schema.Number]>>;
    method: typeof Schema.String;
    params: Schema.optional<Schema.Record$<typeof Schema.String, typeof Schema.Unknown>>;
}>;
export declare const Response: Schema.Union<[Schema.Struct<{
    jsonrpc: Schema.Literal<["2.0"]>;
    id: Schema.Union<[typeof Schema.String, typeof Schema.Number]>;
    result: Schema.Record$<typeof Schema.String, typeof Schema.Unknown>;
}>, Schema.Struct<{
    jsonrpc: Schema.Literal<["2.0"]>;
    id: Schema.NullOr<Schema.Union<[typeof Schema.String, typeof Schema.Number]>>;
    error: Schema.Struct<{
        code: typeof Schema.Int;
        message: typeof Schema.String;
        data: Schema.optional<typeof Schema.Unknown>;
    }>;
}>]>;
export type Response = typeof Response.Type;
export declare const result: (id: RequestId, value: Record<string, unknown>) => Response;
export declare const error: (id: RequestId | null, code: number, message: string) => Response;
/** What one message in a POST body is, once read. */
export type Incoming = {
    readonly _tag: "Request";
    readonly id: RequestId;
    readonly method: string;
    readonly params: Record<string, unknown>;
} | {
    readonly _tag: "Notification";
    readonly method: string;
}
/** A client's answer to a server request; this server sends none, so it is acknowledged and ignored. */
 | {
    readonly _tag: "ClientResponse";
} | {
    readonly _tag: "Invalid";
    readonly id: RequestId | null;
    readonly message: string;
};
/** Classifies one parsed JSON value; anything that is not a JSON-RPC 2.0 message is `Invalid` (-32600). */
export declare const classify: (value: unknown) => Incoming;
//# sourceMappingURL=JsonRpc.d.ts.map