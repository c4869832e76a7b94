import * as Effect from "effect/Effect";
import { commandOf, execute } from "./Exec.js";
const noCommand = "the run has no command: its input needs \"command\", a shell string (run with /bin/sh -c) or an array of strings (argv)";
// Like shell command substitution: `echo hello` reports "hello", not "hello\n".
const trimEnd = (text) => text.replace(/(\r?\n)+$/, "");
const exitDescription = (exitCode, signal) => signal !== null ? `the command was killed by ${signal}` : `the command exited with code ${exitCode}`;
/**
 * The `pipeline-worker` handler: runs the run's `input.command` as a child
 * process. Trailing newlines of its output are dropped. The run's input reaches the command as `PIPELINE_INPUT` (JSON) and
 * on stdin; `PIPELINE_RUN_ID` and `PIPELINE_TRIGGER_ID` name the run. Exit
 * code 0 is `succeeded`; anything else is `failed`, with stderr (or the exit
 * status when stderr is empty) as the error message. Interrupting the handler
 * (the trigger's timeout, shutdown) kills the whole process tree.
 */
export const executeRun = (run) => Effect.gen(function* () {
    const command = commandOf(run.input);
    if (command === undefined) {
        yield* Effect.logWarning("run has no command");
        return { status: "failed", stderr: noCommand, faultClass: "client" };
    }
    const input = JSON.stringify(run.input ?? null);
    const result = yield* execute(command, {
        env: {
            PIPELINE_RUN_ID: run.id,
            PIPELINE_TRIGGER_ID: run.triggerId,
            PIPELINE_ATTEMPT: String(run.attempt),
            PIPELINE_INPUT: input
        },
        stdin: input
    }).pipe(Effect.either);
    if (result._tag === "Left") {
        // The command could not even start (e.g. an argv[0] that does not exist): the run's fault.
        return { status: "failed", stderr: `failed to start the command: ${result.left.message}`, faultClass: "client" };
    }
    const { exitCode, signal, stderr, stdout } = result.right;
    yield* Effect.logInfo("command finished").pipe(Effect.annotateLogs({ exitCode, signal }));
    if (exitCode === 0)
        return { status: "succeeded", stdout: trimEnd(stdout) };
    return {
        status: "failed",
        stdout: trimEnd(stdout),
        stderr: stderr.trim().length > 0 ? trimEnd(stderr) : exitDescription(exitCode, signal),
        faultClass: "client"
    };
});
//# sourceMappingURL=Agent.js.map