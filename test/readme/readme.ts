import { spawn } from "node:child_process"
import * as fs from "node:fs"
import * as path from "node:path"

/** The repository root, where README.md and the package live. */
export const repoRoot = path.resolve(import.meta.dirname, "../..")

/** The text of one `## ` section of the README, its heading included. */
export const readmeSection = (heading: string): string => {
  const readme = fs.readFileSync(path.join(repoRoot, "README.md"), "utf8")
  const start = readme.indexOf(`\n## ${heading}\n`)
  if (start < 0) throw new Error(`README has no section "## ${heading}"`)
  const next = readme.indexOf("\n## ", start + 4)
  return readme.slice(start, next < 0 ? undefined : next)
}

/**
 * The fenced code blocks (```lang … ```) of one `## ` section of the README,
 * in order: the tests run what a reader copies, not a copy of it.
 */
export const readmeBlocks = (heading: string, lang: string): ReadonlyArray<string> => {
  const section = readmeSection(heading)
  const blocks: Array<string> = []
  const fence = new RegExp("^```" + lang + "\\n([\\s\\S]*?)^```$", "gm")
  for (const match of section.matchAll(fence)) blocks.push(match[1]!)
  return blocks
}

export interface Finished {
  readonly code: number | null
  readonly stdout: string
  readonly stderr: string
}

/** Runs a command to its end (killed after `timeoutMs`), collecting its output. */
export const run = (
  command: string,
  args: ReadonlyArray<string>,
  options: { readonly cwd: string; readonly env?: Record<string, string | undefined>; readonly timeoutMs: number }
) =>
  new Promise<Finished>((resolve) => {
    const child = spawn(command, args, { cwd: options.cwd, env: options.env ?? process.env, stdio: ["ignore", "pipe", "pipe"] })
    let stdout = ""
    let stderr = ""
    child.stdout.on("data", (chunk: Buffer) => (stdout += chunk.toString("utf8")))
    child.stderr.on("data", (chunk: Buffer) => (stderr += chunk.toString("utf8")))
    const timer = setTimeout(() => child.kill("SIGKILL"), options.timeoutMs)
    child.once("exit", (code) => {
      clearTimeout(timer)
      resolve({ code, stdout, stderr })
    })
  })
