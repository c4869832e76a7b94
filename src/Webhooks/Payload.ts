import { canonicalOrNull } from "../Contract/Domain/Decimal.js"
import type { FaultClass, TerminalStatus } from "../Contract/Domain/Run.js"

/** The fields of a terminal run the completion webhook reports. */
export interface TerminalRun {
  readonly id: string
  readonly trigger_id: string
  readonly status: TerminalStatus
  readonly duration_ms: number | string | null
  readonly short_message: string | null
  readonly error_message: string | null
  readonly cost_usd: string | null
  readonly fault_class: FaultClass | null
  readonly ended_at: Date | null
}

/**
 * The exact body the receiver gets, with the interface's fields and types and
 * nothing else. Rendered from the terminal run, whose reported fields never
 * change, so every attempt sends (and signs) these same bytes.
 */
export const payloadOf = (run: TerminalRun): string =>
  JSON.stringify({
    runId: run.id,
    triggerId: run.trigger_id,
    status: run.status,
    durationMs: run.duration_ms === null ? 0 : Number(run.duration_ms),
    shortMessage: run.short_message,
    errorMessage: run.error_message,
    costUsd: canonicalOrNull(run.cost_usd),
    faultClass: run.fault_class ?? (run.status === "succeeded" ? "none" : "infra"),
    endedAt: run.ended_at === null ? null : run.ended_at.toISOString()
  })
