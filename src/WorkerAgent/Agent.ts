import * as Effect from "effect/Effect"
import { RunLog, type RunResult, type WorkerRun } from "../WorkerSdk/WorkerSdk.js"
import { execute } from "./Exec.js"

const noCommand = "the trigger has no command: an admin sets the trigger's \"command\" (a shell line) for the worker to run; " +
  "a run's input is only data for it"

// Like shell command substitution: `echo hello` reports "hello", not "hello\n".
const trimEnd = (text: string): string => text.replace(/(\r?\n)+$/, "")

const exitDescription = (exitCode: number | null, signal: string | null): string =>
  signal !== null ? `the command was killed by ${signal}` : `the command exited with code ${exitCode}`

/**
 * The `pipeline-worker` handler: runs the trigger's `command` with
 * `/bin/sh -c` as a child process. What runs is the trigger's, never the
 * run's: the run's input is data, handed to the command as JSON on stdin and
 * in `PIPELINE_INPUT`, never executed or put into the shell line (whoever may
 * start a run must not be able to choose what the worker host executes).
 * `PIPELINE_RUN_ID`, `PIPELINE_TRIGGER_ID` and `PIPELINE_ATTEMPT` name the
 * run. Every line of its stdout and stderr goes to the run's log as it comes
 * (a line that never ends cut at 64 KiB, bytes that are not UTF-8 replaced). Trailing newlines of its output are dropped. Exit
 * code 0 is `succeeded`; anything else is `failed`, with stderr (or the exit
 * status when stderr is empty) as the error message. Interrupting the handler
 * (the trigger's timeout, shutdown) kills the whole process tree. An exit
 * code in `nonRetryableExitCodes` fails the run with `retryable: false`.
 */
export const executeRun = (run: WorkerRun, nonRetryableExitCodes: ReadonlySet<number> = new Set()): Effect.Effect<RunResult, never, RunLog> =>
  Effect.gen(function*() {
    const log = yield* RunLog
    const command = run.trigger.command
    if (command === null || command.trim().length === 0) {
      yield* Effect.logWarning("the run's trigger has no command: run failed without starting anything")
      return { status: "failed", stderr: noCommand, faultClass: "client" } satisfies RunResult
    }
    const input = JSON.stringify(run.input ?? null)
    const result = yield* execute(command, {
      env: {
        PIPELINE_RUN_ID: run.id,
        PIPELINE_TRIGGER_ID: run.triggerId,
        PIPELINE_ATTEMPT: String(run.attempt),
        PIPELINE_INPUT: input
      },
      stdin: input,
      // The run's log: each line of both streams as it comes.
      onLine: log.write
    }).pipe(Effect.either)
    if (result._tag === "Left") {
      // The shell could not even start: the worker host's fault, not the run's.
      return { status: "failed", stderr: `failed to start the command: ${result.left.message}`, faultClass: "infra" } satisfies RunResult
    }
    const { exitCode, signal, stderr, stdout } = result.right
    yield* Effect.logInfo("command finished").pipe(Effect.annotateLogs({ exitCode, signal }))
    if (exitCode === 0) return { status: "succeeded", stdout: trimEnd(stdout) } satisfies RunResult
    return {
      status: "failed",
      stdout: trimEnd(stdout),
      stderr: stderr.trim().length > 0 ? trimEnd(stderr) : exitDescription(exitCode, signal),
      faultClass: "client",
      // The user's mapping (`--non-retryable-exit-codes`): a failure no retry will fix.
      ...(exitCode !== null && nonRetryableExitCodes.has(exitCode) ? { retryable: false } : {})
    } satisfies RunResult
  })
