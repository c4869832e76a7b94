import * as Effect from "effect/Effect";
/** The `pipeline-worker` options: each flag has an environment variable; the flag wins. */
export interface CliOptions {
    readonly url: string;
    readonly token: string | undefined;
    readonly workerId: string | undefined;
    readonly registrationToken: string | undefined;
    /** `--token-file` when given; otherwise the per-server file under the user's config directory. */
    readonly tokenFile: string | undefined;
    readonly label: string | undefined;
    readonly concurrency: number;
    readonly shutdownGraceSeconds: number;
    readonly help: boolean;
    readonly version: boolean;
}
declare const UsageError_base: new <A extends Record<string, any> = {}>(args: import("effect/Types").VoidIfEmpty<{ readonly [P in keyof A as P extends "_tag" ? never : P]: A[P]; }>) => import("effect/Cause").YieldableError & {
    readonly _tag: "UsageError";
} & Readonly<A>;
export declare class UsageError extends UsageError_base<{
    readonly message: string;
}> {
}
export declare const usage = "Usage: pipeline-worker --url <service URL> [credentials] [options]\n\nRuns each run's input.command (a shell string, or an argv array) and reports\nthe result: exit code 0 is succeeded, anything else failed (stderr becomes the\nrun's errorMessage, stdout its shortMessage).\n\nCredentials (one of):\n  --registration-token <wrk_...>  register with this one-time token; the wkt_ token is\n                                  kept in the token file. A later start with the same\n                                  registration token reuses it; another one registers anew\n                                  (env PIPELINE_REGISTRATION_TOKEN)\n  --token <wkt_...> [--worker-id <id>]\n                                  an already registered worker\n                                  (env PIPELINE_WORKER_TOKEN, PIPELINE_WORKER_ID)\n  (none)                          reuse the token saved for this --url\n\nOptions:\n  --url <url>                     the service's origin, e.g. http://localhost:3000 (env PIPELINE_URL)\n  --token-file <path>             where the worker token is kept, mode 0600 (env PIPELINE_TOKEN_FILE,\n                                  default $XDG_CONFIG_HOME/pipeline-worker/<server>.json,\n                                  i.e. ~/.config/pipeline-worker/<server>.json)\n  --label <text>                  label of a newly registered worker (env PIPELINE_WORKER_LABEL)\n  --concurrency <n>               runs executed at the same time (env PIPELINE_CONCURRENCY, default 1)\n  --shutdown-grace <seconds>      on SIGTERM, how long running commands may still finish\n                                  (env PIPELINE_SHUTDOWN_GRACE_SECONDS, default 30)\n  -h, --help                      show this help\n  -v, --version                   print the agent's version\n\nEach run's command gets PIPELINE_RUN_ID, PIPELINE_TRIGGER_ID, PIPELINE_ATTEMPT and\nPIPELINE_INPUT (the run's input as JSON, also on stdin); never the agent's credentials.\n";
/**
 * The default token file: one per server, under the user's config directory
 * (XDG), never the current directory, where a token is one `git add .` away
 * from a commit. A token is only good for the server that issued it.
 */
export declare const defaultTokenFile: (url: string, env: Record<string, string | undefined>) => string;
/** Flags from `argv`, falling back to `env`; malformed input is a `UsageError`. */
export declare const parse: (argv: ReadonlyArray<string>, env: Record<string, string | undefined>) => Effect.Effect<CliOptions, UsageError>;
export {};
//# sourceMappingURL=Options.d.ts.map