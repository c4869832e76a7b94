import * as Effect from "effect/Effect";
import type { RunResult, WorkerRun } from "../WorkerSdk/index.js";
/**
 * The `pipeline-worker` handler: runs the run's `input.command` as a child
 * process. Trailing newlines of its output are dropped. The run's input reaches the command as `PIPELINE_INPUT` (JSON) and
 * on stdin; `PIPELINE_RUN_ID` and `PIPELINE_TRIGGER_ID` name the run. Exit
 * code 0 is `succeeded`; anything else is `failed`, with stderr (or the exit
 * status when stderr is empty) as the error message. Interrupting the handler
 * (the trigger's timeout, shutdown) kills the whole process tree.
 */
export declare const executeRun: (run: WorkerRun) => Effect.Effect<RunResult>;
//# sourceMappingURL=Agent.d.ts.map