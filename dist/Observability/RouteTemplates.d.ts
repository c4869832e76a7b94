/** What a request that matches no route is counted and logged as (bounded label cardinality). */
export declare const unmatched = "unmatched";
/** Paths served beside the API's endpoints (dashboard, docs, probes, metrics). */
export declare const extraRoutes: ReadonlyArray<`/${string}`>;
/**
 * The route template of a request (`/api/v1/runs/:id`, never the raw path),
 * for metric labels and request logs. Read from the API definition, so new
 * endpoints are covered without a list to keep in step; one lookup in a
 * radix tree per request. The method is not part of the match: a CORS
 * preflight is labelled with the route it asks about.
 */
export declare const make: (extra?: ReadonlyArray<`/${string}`>) => (url: string) => string;
//# sourceMappingURL=RouteTemplates.d.ts.map