import * as Context from "effect/Context"
import type * as Effect from "effect/Effect"

/** One step of a waiting tool: what it is waiting for now, and how long it waits at most (seconds). */
export interface ProgressUpdate {
  readonly message: string
  readonly totalSeconds?: number
}

/**
 * Where a tool that waits (`wait_for_run`) reports how its wait goes. Provided
 * only when the answer is an SSE stream (see `Mcp/Streaming`); a JSON answer
 * has nowhere to put it, so tools read it with `Effect.serviceOption`.
 */
export class ToolProgress extends Context.Tag("Mcp/ToolProgress")<ToolProgress, {
  readonly report: (update: ProgressUpdate) => Effect.Effect<void>
}>() {}
