import { describe, expect, it } from "@effect/vitest"
import * as fs from "node:fs"
import * as path from "node:path"
import { repoRoot } from "./readme.js"

/**
 * Every relative link in the README, the changelog and docs/ points to a file
 * that exists and, when it names an anchor of a Markdown page, to a heading
 * of that page (GitHub's slugs), so moving or renaming a page or a heading
 * cannot leave a reader at a dead link.
 */

const markdownFiles = (): ReadonlyArray<string> => {
  const found: Array<string> = ["README.md", "CHANGELOG.md"].map((f) => path.join(repoRoot, f))
  const walk = (dir: string): void => {
    for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
      const full = path.join(dir, entry.name)
      if (entry.isDirectory()) walk(full)
      else if (entry.name.endsWith(".md")) found.push(full)
    }
  }
  walk(path.join(repoRoot, "docs"))
  return found
}

const withoutCode = (text: string): string => text.replace(/^```[\s\S]*?^```$/gm, "")

/** GitHub's anchor for a heading: lower case, punctuation dropped, spaces as dashes, repeats numbered. */
const anchorsOf = (file: string): ReadonlySet<string> => {
  const seen = new Map<string, number>()
  const anchors = new Set<string>()
  for (const match of withoutCode(fs.readFileSync(file, "utf8")).matchAll(/^#{1,6} (.+)$/gm)) {
    const slug = match[1]!.trim().toLowerCase().replace(/[^\p{L}\p{N}\- _]/gu, "").replace(/ /g, "-")
    const count = seen.get(slug)
    seen.set(slug, count === undefined ? 0 : count + 1)
    anchors.add(count === undefined ? slug : `${slug}-${count + 1}`)
  }
  return anchors
}

const brokenLinks = (): ReadonlyArray<string> => {
  const broken: Array<string> = []
  for (const file of markdownFiles()) {
    for (const match of withoutCode(fs.readFileSync(file, "utf8")).matchAll(/\]\(([^)\s]+)\)/g)) {
      const link = match[1]!
      if (/^[a-z][a-z0-9+.-]*:/i.test(link)) continue
      const [target, anchor] = link.split("#", 2)
      const resolved = target ? path.resolve(path.dirname(file), target) : file
      const where = `${path.relative(repoRoot, file)}: ${link}`
      if (!fs.existsSync(resolved)) broken.push(`${where} (no such file)`)
      else if (anchor && resolved.endsWith(".md") && !anchorsOf(resolved).has(anchor)) broken.push(`${where} (no such heading)`)
    }
  }
  return broken
}

describe("documentation links", () => {
  it("every relative link in README.md, CHANGELOG.md and docs/ reaches an existing file and heading", () => {
    expect(markdownFiles().length).toBeGreaterThan(20)
    expect(brokenLinks()).toEqual([])
  })
})
