import { type HttpApiGroup } from "@effect/platform";
/**
 * Makes the generated OpenAPI document tell the truth (`groups`: every group of the API). `HttpApi` lists the
 * API-wide errors (400, 401, 404, 413, …) under every operation, and keeps the
 * builder's decode error beside ours; here each operation keeps only the
 * statuses it can answer:
 *
 * - 400 where there is something to validate (a body, query or header parameters),
 * - 401 where credentials are required (or the operation declares it),
 * - 404 where the path names something (or the operation declares it),
 * - 413 and 415 where there is a body,
 * - 500 and 503 everywhere (a defect; the database unreachable),
 * - and what the operation declares itself; its group's and middleware's
 *   other statuses (403, 409, …), a middleware's 403 (the Origin check of
 *   cookie calls) only on methods that change something.
 *
 * Effect's marker `$id`s (`/schemas/unknown`) go: repeated, they make the
 * document invalid. Request bodies ignore unknown fields (`onExcessProperty: "ignore"`), so no
 * schema claims `additionalProperties: false`. Contract side: no server code.
 */
export declare const refine: (groups: ReadonlyArray<HttpApiGroup.HttpApiGroup.Any>, spec: Record<string, any>) => Record<string, any>;
//# sourceMappingURL=OpenApiDocument.d.ts.map