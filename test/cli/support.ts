import * as Effect from "effect/Effect"
import * as Schedule from "effect/Schedule"
import { type ChildProcess, spawn } from "node:child_process"
import * as path from "node:path"

const root = path.resolve(import.meta.dirname, "../..")
const bin = path.join(root, "bin", "pipeline-worker.js")

/** The config directory the agents of a test started in `cwd` use. */
export const configHome = (cwd: string): string => path.join(cwd, ".config")

export interface Agent {
  readonly child: ChildProcess
  /** Everything the agent wrote so far (its logs go to stderr). */
  readonly output: () => string
  /** Resolves with the exit code (or the signal's name) once the process is gone. */
  readonly exited: Promise<number | string>
}

/** An agent process with its output collected and its exit awaited (for any way of starting it). */
export const watch = (child: ChildProcess): Agent => {
  let text = ""
  child.stdout!.on("data", (chunk: Buffer) => (text += chunk.toString("utf8")))
  child.stderr!.on("data", (chunk: Buffer) => (text += chunk.toString("utf8")))
  const exited = new Promise<number | string>((resolve) => child.once("exit", (code, signal) => resolve(code ?? signal ?? "unknown")))
  return { child, output: () => text, exited }
}

/**
 * Starts `node bin/pipeline-worker.js` exactly as a user would, in `cwd`, with
 * only the given environment on top of PATH/HOME. Killed when the scope closes.
 */
export const startAgent = (args: ReadonlyArray<string>, options: { readonly cwd: string; readonly env?: Record<string, string> }) =>
  Effect.acquireRelease(
    Effect.sync((): Agent => {
      const child = spawn(process.execPath, [bin, ...args], {
        cwd: options.cwd,
        // The agent keeps its token under XDG_CONFIG_HOME: a folder of the test's own, never the user's.
        env: {
          PATH: process.env.PATH ?? "/usr/bin:/bin",
          HOME: process.env.HOME ?? "/tmp",
          XDG_CONFIG_HOME: configHome(options.cwd),
          ...options.env
        },
        stdio: ["ignore", "pipe", "pipe"]
      })
      return watch(child)
    }),
    (agent) =>
      Effect.promise(() => {
        if (agent.child.exitCode === null && agent.child.signalCode === null) agent.child.kill("SIGKILL")
        return agent.exited
      })
  )

/** Waits until the agent has written a line matching `pattern`. */
export const waitForOutput = (agent: Agent, pattern: RegExp, seconds = 20) =>
  Effect.suspend(() => pattern.test(agent.output()) ? Effect.void : Effect.fail("not yet" as const)).pipe(
    Effect.retry(Schedule.spaced("100 millis").pipe(Schedule.upTo(`${seconds} seconds`))),
    Effect.catchAll(() => Effect.dieMessage(`agent never printed ${pattern}; output:\n${agent.output()}`))
  )

/** The exit code, waiting at most `seconds`. */
export const exitCode = (agent: Agent, seconds = 30) =>
  Effect.promise(() => agent.exited).pipe(
    Effect.timeoutFail({ duration: `${seconds} seconds`, onTimeout: () => new Error(`agent did not exit; output:\n${agent.output()}`) }),
    Effect.orDie
  )

/** Whether a process with this pid still exists. */
export const alive = (pid: number): boolean => {
  try {
    process.kill(pid, 0)
    return true
  } catch {
    return false
  }
}
