import { createHash } from "node:crypto"
import * as fs from "node:fs/promises"
import * as path from "node:path"
import * as Effect from "effect/Effect"

/** One built file of the dashboard, served under its fingerprinted name. */
export interface Asset {
  readonly body: Uint8Array
  readonly contentType: string
}

/** The dashboard as served: the page and its assets keyed by fingerprinted name. */
export interface Site {
  readonly index: string
  readonly assets: ReadonlyMap<string, Asset>
}

const contentTypes: Record<string, string> = {
  ".js": "text/javascript; charset=utf-8",
  ".css": "text/css; charset=utf-8",
  ".svg": "image/svg+xml",
  ".png": "image/png",
  ".ico": "image/x-icon"
}

/** `app.js` → `app.3f2a9c01b7de.js`: the name changes whenever the content does, so it can be cached for ever. */
export const fingerprint = (name: string, body: Uint8Array): string => {
  const ext = path.extname(name)
  const hash = createHash("sha256").update(body).digest("hex").slice(0, 12)
  return `${name.slice(0, name.length - ext.length)}.${hash}${ext}`
}

// `from "./x.js"`, `import "./x.js"` and `import("./x.js")`: sibling modules only (the directory is flat).
const siblingImport = /(\bfrom\s*|\bimport\s*\(?\s*)(["'])\.\/([A-Za-z0-9_-]+\.js)\2/g

/** The sibling modules a script imports. */
export const importsOf = (source: string): ReadonlyArray<string> =>
  [...source.matchAll(siblingImport)].map((m) => m[3]!)

/** The script with each sibling import pointed at that module's served name. */
export const rewriteImports = (source: string, served: ReadonlyMap<string, string>): string =>
  source.replace(siblingImport, (whole, lead: string, quote: string, name: string) => {
    const target = served.get(name)
    return target === undefined ? whole : `${lead}${quote}./${target}${quote}`
  })

/**
 * Reads a dashboard directory (`index.html` plus flat assets), names each
 * asset by its content hash and points the page's `/assets/<name>` references
 * at the fingerprinted names. Scripts import each other as `./name.js`; those
 * imports are rewritten too, dependencies first, so a module's name also
 * changes when anything it imports changes (an old cached module never loads a
 * new one's API). `generated` adds modules written by the server (name →
 * source), served like the files. Read once at start: the files never change
 * while the process runs.
 */
export const load = (dir: string, generated: Readonly<Record<string, string>> = {}): Effect.Effect<Site> =>
  Effect.promise(async () => {
    const files = (await fs.readdir(dir)).filter((name) => name !== "index.html")
    const names = [...new Set([...files, ...Object.keys(generated)])].sort()
    const raw = new Map<string, Uint8Array>()
    for (const name of files) raw.set(name, new Uint8Array(await fs.readFile(path.join(dir, name))))
    // Modules the server writes (from its contract) stand beside the files; a file of the same name gives way.
    for (const [name, source] of Object.entries(generated)) raw.set(name, new TextEncoder().encode(source))
    const served = new Map<string, string>()
    const assets = new Map<string, Asset>()
    const visiting = new Set<string>()
    const visit = (name: string): void => {
      if (served.has(name) || !raw.has(name)) return
      // A cycle would make hashes depend on themselves; the dashboard has none, and one is refused loudly.
      if (visiting.has(name)) throw new Error(`dashboard modules import each other in a cycle at ${name}`)
      visiting.add(name)
      let body = raw.get(name)!
      if (name.endsWith(".js")) {
        const source = new TextDecoder().decode(body)
        for (const dep of importsOf(source)) visit(dep)
        body = new TextEncoder().encode(rewriteImports(source, served))
      }
      visiting.delete(name)
      const finalName = fingerprint(name, body)
      served.set(name, finalName)
      assets.set(finalName, { body, contentType: contentTypes[path.extname(name)] ?? "application/octet-stream" })
    }
    for (const name of names) visit(name)
    let index = await fs.readFile(path.join(dir, "index.html"), "utf8")
    for (const [name, finalName] of served) index = index.replaceAll(`/assets/${name}"`, `/assets/${finalName}"`)
    return { index, assets }
  })
