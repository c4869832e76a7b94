import { createHash } from "node:crypto";
import * as fs from "node:fs/promises";
import * as path from "node:path";
import * as Effect from "effect/Effect";
const contentTypes = {
    ".js": "text/javascript; charset=utf-8",
    ".css": "text/css; charset=utf-8",
    ".svg": "image/svg+xml",
    ".png": "image/png",
    ".ico": "image/x-icon"
};
/** `app.js` → `app.3f2a9c01b7de.js`: the name changes whenever the content does, so it can be cached for ever. */
export const fingerprint = (name, body) => {
    const ext = path.extname(name);
    const hash = createHash("sha256").update(body).digest("hex").slice(0, 12);
    return `${name.slice(0, name.length - ext.length)}.${hash}${ext}`;
};
// `from "./x.js"`, `import "./x.js"` and `import("./x.js")`: sibling modules only (the directory is flat).
const siblingImport = /(\bfrom\s*|\bimport\s*\(?\s*)(["'])\.\/([A-Za-z0-9_-]+\.js)\2/g;
/** The sibling modules a script imports. */
export const importsOf = (source) => [...source.matchAll(siblingImport)].map((m) => m[3]);
/** The script with each sibling import pointed at that module's served name. */
export const rewriteImports = (source, served) => source.replace(siblingImport, (whole, lead, quote, name) => {
    const target = served.get(name);
    return target === undefined ? whole : `${lead}${quote}./${target}${quote}`;
});
/**
 * Reads a dashboard directory (`index.html` plus flat assets), names each
 * asset by its content hash and points the page's `/assets/<name>` references
 * at the fingerprinted names. Scripts import each other as `./name.js`; those
 * imports are rewritten too, dependencies first, so a module's name also
 * changes when anything it imports changes (an old cached module never loads a
 * new one's API). Read once at start: the files never change while the process runs.
 */
export const load = (dir) => Effect.promise(async () => {
    const names = (await fs.readdir(dir)).filter((name) => name !== "index.html").sort();
    const raw = new Map();
    for (const name of names)
        raw.set(name, new Uint8Array(await fs.readFile(path.join(dir, name))));
    const served = new Map();
    const assets = new Map();
    const visiting = new Set();
    const visit = (name) => {
        if (served.has(name) || !raw.has(name))
            return;
        // A cycle would make hashes depend on themselves; the dashboard has none, and one is refused loudly.
        if (visiting.has(name))
            throw new Error(`dashboard modules import each other in a cycle at ${name}`);
        visiting.add(name);
        let body = raw.get(name);
        if (name.endsWith(".js")) {
            const source = new TextDecoder().decode(body);
            for (const dep of importsOf(source))
                visit(dep);
            body = new TextEncoder().encode(rewriteImports(source, served));
        }
        visiting.delete(name);
        const finalName = fingerprint(name, body);
        served.set(name, finalName);
        assets.set(finalName, { body, contentType: contentTypes[path.extname(name)] ?? "application/octet-stream" });
    };
    for (const name of names)
        visit(name);
    let index = await fs.readFile(path.join(dir, "index.html"), "utf8");
    for (const [name, finalName] of served)
        index = index.replaceAll(`/assets/${name}"`, `/assets/${finalName}"`);
    return { index, assets };
});
//# sourceMappingURL=Assets.js.map