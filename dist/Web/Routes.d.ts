/**
 * Headers on the page: scripts and styles only from this origin (no inline
 * code, so an injected string cannot run), API calls only to this origin, and
 * the page may not be framed (clickjacking of the write buttons).
 */
export declare const pageHeaders: Readonly<Record<string, string>>;
/** The dashboard's files in this package (`web/`), found beside the sources so an embedding program needs no path. */
export declare const dashboardDir: string;
/**
 * Serves a built dashboard at `/` and its assets at `/assets/<fingerprinted name>`
 * on the API's own router, beside `/docs`; anything else stays the API's.
 */
export declare const layer: (dir?: string) => import("effect/Layer").Layer<never, never, never>;
//# sourceMappingURL=Routes.d.ts.map