import * as Effect from "effect/Effect";
/** What a run's `input.command` may be: a shell string, or an argv array run without a shell. */
export type CommandSpec = string | ReadonlyArray<string>;
export interface ExecOptions {
    /** Extra environment for the child (merged over the agent's own). */
    readonly env?: Record<string, string>;
    /** Written to the child's stdin, then stdin is closed. */
    readonly stdin?: string;
    /** Output kept per stream; the rest is dropped (the service keeps 64 KiB of stderr). */
    readonly maxOutputBytes?: number;
}
export interface ExecResult {
    readonly exitCode: number | null;
    readonly signal: string | null;
    readonly stdout: string;
    readonly stderr: string;
}
/**
 * Runs a command as a child process in its own process group. Interrupting
 * the effect (a timeout, SIGTERM of the agent) kills the whole group — the
 * shell and everything it started — with SIGTERM, then SIGKILL after 2 s.
 */
export declare const execute: (command: CommandSpec, options?: ExecOptions) => Effect.Effect<ExecResult, Error>;
/** A command spec from a run's `input`: `input.command` as a string or an array of strings. */
export declare const commandOf: (input: unknown) => CommandSpec | undefined;
//# sourceMappingURL=Exec.d.ts.map