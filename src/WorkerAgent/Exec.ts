import * as Effect from "effect/Effect"
import * as Runtime from "effect/Runtime"
import { spawn } from "node:child_process"
import type { Readable } from "node:stream"

export interface ExecOptions {
  /** Extra environment for the child (merged over the agent's own). */
  readonly env?: Record<string, string>
  /** Written to the child's stdin, then stdin is closed. */
  readonly stdin?: string
  /** Output kept per stream; the rest is dropped (the service keeps 64 KiB of stderr). */
  readonly maxOutputBytes?: number
  /**
   * Called with each line of output as it comes, in order per stream (see
   * `LineSplitter`); the stream is paused until it returns, so a slow
   * consumer slows the command's output rather than buffering it.
   */
  readonly onLine?: (stream: "stdout" | "stderr", line: string) => Effect.Effect<void>
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

/** A line that never ends is cut here and continued as the next line. */
export const maxLineBytes = 64 * 1024

/**
 * Splits a byte stream into lines: at `\n` (a `\r` before it dropped), a line
 * longer than `maxLineBytes` cut there (before a character that would not fit
 * whole), the last line given when the stream ends. Bytes that are not UTF-8
 * become U+FFFD: a line is never refused.
 */
export const lineSplitter = (emit: (line: string) => void, max: number = maxLineBytes) => {
  let pending: Buffer = Buffer.alloc(0)
  const line = (bytes: Buffer) => {
    const end = bytes.length > 0 && bytes[bytes.length - 1] === 0x0d ? bytes.length - 1 : bytes.length
    emit(bytes.subarray(0, end).toString("utf8"))
  }
  const cut = () => {
    while (pending.length > max) {
      // Back to the start of the character the cut falls in (a UTF-8 character is at most 4 bytes).
      let end = max
      while (end > max - 3 && (pending[end]! & 0xc0) === 0x80) end--
      emit(pending.subarray(0, end).toString("utf8"))
      pending = pending.subarray(end)
    }
  }
  return {
    push: (chunk: Buffer) => {
      let data = pending.length === 0 ? chunk : Buffer.concat([pending, chunk])
      let nl = data.indexOf(0x0a)
      while (nl !== -1) {
        pending = data.subarray(0, nl)
        cut()
        line(pending)
        data = data.subarray(nl + 1)
        nl = data.indexOf(0x0a)
      }
      pending = data
      cut()
    },
    end: () => {
      if (pending.length > 0) line(pending)
      pending = Buffer.alloc(0)
    }
  }
}

/** Feeds a child's output stream to `onLine`, line by line, pausing the stream while a line is handled. */
const pump = (
  readable: Readable,
  stream: "stdout" | "stderr",
  onLine: (stream: "stdout" | "stderr", line: string) => Effect.Effect<void>,
  runtime: Runtime.Runtime<never>
) => {
  const lines: Array<string> = []
  const splitter = lineSplitter((line) => lines.push(line))
  let chain: Promise<void> = Promise.resolve()
  const drain = () => {
    const batch = lines.splice(0)
    if (batch.length === 0) return
    readable.pause()
    chain = chain.then(() => Runtime.runPromise(runtime)(Effect.forEach(batch, (line) => onLine(stream, line), { discard: true })))
      .catch(() => undefined)
      .then(() => { readable.resume() })
  }
  readable.on("data", (chunk: Buffer) => {
    splitter.push(chunk)
    drain()
  })
  return new Promise<void>((resolve) => {
    readable.once("close", () => {
      splitter.end()
      drain()
      void chain.then(resolve)
    })
  })
}

/**
 * Runs a shell line (the trigger's command, never anything from a run's
 * input) with `/bin/sh -c` as a child process in its own process group.
 * Data for it goes in `env` and `stdin` only. Its output is kept (the first
 * `maxOutputBytes` of each stream) and, with `onLine`, handed over line by
 * line as it comes. Interrupting the effect (a timeout, SIGTERM of the agent)
 * kills the whole group (the shell and everything it started) with SIGTERM,
 * then SIGKILL after 2 s.
 */
export const execute = (command: string, options: ExecOptions = {}): Effect.Effect<ExecResult, Error> =>
  Effect.flatMap(Effect.runtime<never>(), (runtime) =>
    Effect.async<ExecResult, Error>((resume) => {
      const max = options.maxOutputBytes ?? 1024 * 1024
      const child = spawn("/bin/sh", ["-c", command], {
        shell: false,
        detached: true,
        env: { ...process.env, ...options.env },
        stdio: ["pipe", "pipe", "pipe"]
      })
      const out = collector(max)
      const err = collector(max)
      child.stdout.on("data", out.push)
      child.stderr.on("data", err.push)
      const pumped = options.onLine === undefined
        ? Promise.resolve()
        : Promise.all([pump(child.stdout, "stdout", options.onLine, runtime), pump(child.stderr, "stderr", options.onLine, runtime)])
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
        // Every line handed over before the result.
        void pumped.then(() => resume(Effect.succeed({ exitCode: code, signal, stdout: out.text(), stderr: err.text() })))
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
    }))
