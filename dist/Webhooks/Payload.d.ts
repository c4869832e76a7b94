/** The fields of a terminal run the completion webhook reports. */
export interface TerminalRun {
    readonly id: string;
    readonly trigger_id: string;
    readonly status: "succeeded" | "failed" | "timed_out";
    readonly duration_ms: number | string | null;
    readonly short_message: string | null;
    readonly error_message: string | null;
    readonly cost_usd: string | null;
    readonly fault_class: "infra" | "client" | "none" | null;
    readonly ended_at: Date | null;
}
/**
 * The exact body the receiver gets, with the interface's fields and types and
 * nothing else. Rendered from the terminal run, whose reported fields never
 * change, so every attempt sends (and signs) these same bytes.
 */
export declare const payloadOf: (run: TerminalRun) => string;
//# sourceMappingURL=Payload.d.ts.map