import * as Effect from "effect/Effect"
import { spawn } from "node:child_process"

/** What a run's `input.command` may be: a shell string, or an argv array run without a shell. */
export type CommandSpec = string | ReadonlyArray<string>

export interface ExecOptions {
  /** Extra environment for the child (merged over the agent's own). */
  readonly env?: Record<string, string>
  /** Written to the child's stdin, then stdin is closed. */
  readonly stdin?: string
  /** Output kept per stream; the rest is dropped (the service keeps 64 KiB of stderr). */
  readonly maxOutputBytes?: number
}

export interface ExecResult {
  readonly exitCode: number | null
  readonly signal: string | null
  readonly stdout: string
  readonly stderr: string
}

const collector = (max: number) => {
  const chunks: Array<Buffer> = []
  let size = 0
  return {
    push: (chunk: Buffer) => {
      if (size >= max) return
      const part = chunk.subarray(0, max - size)
      chunks.push(part)
      size += part.length
    },
    text: () => Buffer.concat(chunks).toString("utf8")
  }
}

/**
 * Runs a command as a child process in its own process group. Interrupting
 * the effect (a timeout, SIGTERM of the agent) kills the whole group — the
 * shell and everything it started — with SIGTERM, then SIGKILL after 2 s.
 */
export const execute = (command: CommandSpec, options: ExecOptions = {}): Effect.Effect<ExecResult, Error> =>
  Effect.async<ExecResult, Error>((resume) => {
    const max = options.maxOutputBytes ?? 1024 * 1024
    const [file, args, shell] = typeof command === "string"
      ? ["/bin/sh", ["-c", command], false] as const
      : [command[0]!, command.slice(1), false] as const
    const child = spawn(file, args, {
      shell,
      detached: true,
      env: { ...process.env, ...options.env },
      stdio: ["pipe", "pipe", "pipe"]
    })
    const out = collector(max)
    const err = collector(max)
    child.stdout.on("data", out.push)
    child.stderr.on("data", err.push)
    child.stdin.on("error", () => {
      // The child may exit without reading its stdin; that is not an error of the run.
    })
    child.stdin.end(options.stdin ?? "")
    let settled = false
    child.once("error", (error) => {
      if (settled) return
      settled = true
      resume(Effect.fail(error))
    })
    child.once("close", (code, signal) => {
      if (settled) return
      settled = true
      resume(Effect.succeed({ exitCode: code, signal, stdout: out.text(), stderr: err.text() }))
    })
    return Effect.sync(() => {
      const killGroup = (sig: NodeJS.Signals) => {
        try {
          if (child.pid !== undefined) process.kill(-child.pid, sig)
        } catch {
          // Already gone.
        }
      }
      killGroup("SIGTERM")
      const escalate = setTimeout(() => killGroup("SIGKILL"), 2000)
      escalate.unref()
      child.once("close", () => clearTimeout(escalate))
    })
  })

/** A command spec from a run's `input`: `input.command` as a string or an array of strings. */
export const commandOf = (input: unknown): CommandSpec | undefined => {
  if (input === null || typeof input !== "object") return undefined
  const command = (input as { command?: unknown }).command
  if (typeof command === "string" && command.length > 0) return command
  if (Array.isArray(command) && command.length > 0 && command.every((c) => typeof c === "string")) {
    return command as ReadonlyArray<string>
  }
  return undefined
}
