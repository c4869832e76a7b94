import * as Effect from "effect/Effect";
/** One built file of the dashboard, served under its fingerprinted name. */
export interface Asset {
    readonly body: Uint8Array;
    readonly contentType: string;
}
/** The dashboard as served: the page and its assets keyed by fingerprinted name. */
export interface Site {
    readonly index: string;
    readonly assets: ReadonlyMap<string, Asset>;
}
/** `app.js` → `app.3f2a9c01b7de.js`: the name changes whenever the content does, so it can be cached for ever. */
export declare const fingerprint: (name: string, body: Uint8Array) => string;
/** The sibling modules a script imports. */
export declare const importsOf: (source: string) => ReadonlyArray<string>;
/** The script with each sibling import pointed at that module's served name. */
export declare const rewriteImports: (source: string, served: ReadonlyMap<string, string>) => string;
/**
 * Reads a dashboard directory (`index.html` plus flat assets), names each
 * asset by its content hash and points the page's `/assets/<name>` references
 * at the fingerprinted names. Scripts import each other as `./name.js`; those
 * imports are rewritten too, dependencies first, so a module's name also
 * changes when anything it imports changes (an old cached module never loads a
 * new one's API). Read once at start: the files never change while the process runs.
 */
export declare const load: (dir: string) => Effect.Effect<Site>;
//# sourceMappingURL=Assets.d.ts.map