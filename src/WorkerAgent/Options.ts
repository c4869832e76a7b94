import * as Data from "effect/Data"
import * as Effect from "effect/Effect"
import * as os from "node:os"
import * as path from "node:path"
import { parseArgs } from "node:util"

/** The `pipeline-worker` options: each flag has an environment variable; the flag wins. */
export interface CliOptions {
  readonly url: string
  readonly token: string | undefined
  readonly workerId: string | undefined
  readonly registrationToken: string | undefined
  /** `--token-file` when given; otherwise the per-server file under the user's config directory. */
  readonly tokenFile: string | undefined
  readonly label: string | undefined
  readonly concurrency: number
  readonly shutdownGraceSeconds: number
  /** Exit codes that mean "no retry will fix this": the run fails with `retryable: false`. */
  readonly nonRetryableExitCodes: ReadonlySet<number>
  readonly help: boolean
  readonly version: boolean
}

export class UsageError extends Data.TaggedError("UsageError")<{ readonly message: string }> {}

export const usage = `Usage: pipeline-worker --url <service URL> [credentials] [options]

Runs the command of each run's trigger with /bin/sh -c, the run's input as
JSON on stdin and in PIPELINE_INPUT (data, never executed), and reports
the result: exit code 0 is succeeded, anything else failed (stderr becomes the
run's errorMessage, stdout its shortMessage).

Credentials (one of; give tokens in the environment: arguments show in ps):
  --registration-token <wrk_...>  register with this one-time token; the wkt_ token is
                                  kept in the token file. A later start with the same
                                  registration token reuses it; another one registers anew
                                  (env PIPELINE_REGISTRATION_TOKEN)
  --token <wkt_...> [--worker-id <id>]
                                  an already registered worker
                                  (env PIPELINE_WORKER_TOKEN, PIPELINE_WORKER_ID)
  (none)                          reuse the token saved for this --url

Options:
  --url <url>                     the service's origin, e.g. http://localhost:3000 (env PIPELINE_URL)
  --token-file <path>             where the worker token is kept, mode 0600 (env PIPELINE_TOKEN_FILE,
                                  default $XDG_CONFIG_HOME/pipeline-worker/<server>.json,
                                  i.e. ~/.config/pipeline-worker/<server>.json)
  --label <text>                  label of a newly registered worker (env PIPELINE_WORKER_LABEL)
  --concurrency <n>               runs executed at the same time (env PIPELINE_CONCURRENCY, default 1)
  --shutdown-grace <seconds>      on SIGTERM, how long running commands may still finish
                                  (env PIPELINE_SHUTDOWN_GRACE_SECONDS, default 30)
  --non-retryable-exit-codes <list>
                                  comma-separated exit codes (1..255) that mean no retry will fix
                                  the failure: the run fails with retryable false, so the trigger's
                                  maxRetries makes no retry (env PIPELINE_NON_RETRYABLE_EXIT_CODES)
  -h, --help                      show this help
  -v, --version                   print the agent's version

Each run's command gets PIPELINE_RUN_ID, PIPELINE_TRIGGER_ID, PIPELINE_ATTEMPT and
PIPELINE_INPUT (the run's input as JSON, also on stdin); never the agent's credentials.
`

const positiveInt = (name: string, raw: string | undefined, fallback: number, min: number) =>
  Effect.gen(function*() {
    if (raw === undefined || raw === "") return fallback
    const n = Number(raw)
    if (!Number.isInteger(n) || n < min || n > 10_000) {
      return yield* Effect.fail(new UsageError({ message: `${name} must be an integer from ${min} to 10000, got "${raw}"` }))
    }
    return n
  })

/** A comma-separated list of exit codes 1..255 (empty: none). */
const exitCodes = (raw: string | undefined) =>
  Effect.gen(function*() {
    const codes = new Set<number>()
    for (const part of (raw ?? "").split(",")) {
      if (part.trim() === "") continue
      const n = Number(part.trim())
      if (!Number.isInteger(n) || n < 1 || n > 255) {
        return yield* Effect.fail(new UsageError({ message: `--non-retryable-exit-codes must be exit codes from 1 to 255, comma-separated, got "${raw}"` }))
      }
      codes.add(n)
    }
    return codes as ReadonlySet<number>
  })

const nonEmpty = (value: string | undefined): string | undefined =>
  value === undefined || value.trim() === "" ? undefined : value.trim()

/**
 * The default token file: one per server, under the user's config directory
 * (XDG), never the current directory, where a token is one `git add .` away
 * from a commit. A token is only good for the server that issued it.
 */
export const defaultTokenFile = (url: string, env: Record<string, string | undefined>): string => {
  const xdg = nonEmpty(env.XDG_CONFIG_HOME)
  const configHome = xdg !== undefined && path.isAbsolute(xdg)
    ? xdg
    : path.join(nonEmpty(env.HOME) ?? os.homedir(), ".config")
  // http://localhost:3000 → http_localhost_3000.json
  const server = url.replace(/[^A-Za-z0-9.-]+/g, "_")
  return path.join(configHome, "pipeline-worker", `${server}.json`)
}

/** Flags from `argv`, falling back to `env`; malformed input is a `UsageError`. */
export const parse = (argv: ReadonlyArray<string>, env: Record<string, string | undefined>): Effect.Effect<CliOptions, UsageError> =>
  Effect.gen(function*() {
    const parsed = yield* Effect.try({
      try: () =>
        parseArgs({
          args: [...argv],
          strict: true,
          allowPositionals: false,
          options: {
            url: { type: "string" },
            token: { type: "string" },
            "worker-id": { type: "string" },
            "registration-token": { type: "string" },
            "token-file": { type: "string" },
            label: { type: "string" },
            concurrency: { type: "string" },
            "shutdown-grace": { type: "string" },
            "non-retryable-exit-codes": { type: "string" },
            help: { type: "boolean", short: "h" },
            version: { type: "boolean", short: "v" }
          }
        }).values,
      catch: (error) => new UsageError({ message: error instanceof Error ? error.message : String(error) })
    })
    const help = parsed.help === true
    const version = parsed.version === true
    const url = nonEmpty(parsed.url ?? env.PIPELINE_URL)
    if (url === undefined && !help && !version) {
      return yield* Effect.fail(new UsageError({ message: "--url (or PIPELINE_URL) is required: the service's origin, e.g. http://localhost:3000" }))
    }
    const token = nonEmpty(parsed.token ?? env.PIPELINE_WORKER_TOKEN)
    const workerId = nonEmpty(parsed["worker-id"] ?? env.PIPELINE_WORKER_ID)
    const registrationToken = nonEmpty(parsed["registration-token"] ?? env.PIPELINE_REGISTRATION_TOKEN)
    if (token !== undefined && !token.startsWith("wkt_")) {
      return yield* Effect.fail(new UsageError({ message: "--token must be a wkt_ worker token" }))
    }
    if (registrationToken !== undefined && !registrationToken.startsWith("wrk_")) {
      return yield* Effect.fail(new UsageError({ message: "--registration-token must be a wrk_ registration token" }))
    }
    return {
      url: url ?? "",
      token,
      workerId,
      registrationToken,
      tokenFile: nonEmpty(parsed["token-file"] ?? env.PIPELINE_TOKEN_FILE),
      label: nonEmpty(parsed.label ?? env.PIPELINE_WORKER_LABEL),
      concurrency: yield* positiveInt("--concurrency", parsed.concurrency ?? env.PIPELINE_CONCURRENCY, 1, 1),
      shutdownGraceSeconds: yield* positiveInt("--shutdown-grace", parsed["shutdown-grace"] ?? env.PIPELINE_SHUTDOWN_GRACE_SECONDS, 30, 0),
      nonRetryableExitCodes: yield* exitCodes(parsed["non-retryable-exit-codes"] ?? env.PIPELINE_NON_RETRYABLE_EXIT_CODES),
      help,
      version
    } satisfies CliOptions
  })
