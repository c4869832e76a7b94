import { canonicalOrNull } from "../Domain/Decimal.js";
/**
 * The exact body the receiver gets, with the interface's fields and types and
 * nothing else. Rendered from the terminal run, whose reported fields never
 * change, so every attempt sends (and signs) these same bytes.
 */
export const payloadOf = (run) => JSON.stringify({
    runId: run.id,
    triggerId: run.trigger_id,
    status: run.status,
    durationMs: run.duration_ms === null ? 0 : Number(run.duration_ms),
    shortMessage: run.short_message,
    errorMessage: run.error_message,
    costUsd: canonicalOrNull(run.cost_usd),
    faultClass: run.fault_class ?? (run.status === "succeeded" ? "none" : "infra"),
    endedAt: run.ended_at === null ? null : run.ended_at.toISOString()
});
//# sourceMappingURL=Payload.js.map