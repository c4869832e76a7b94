import * as FetchHttpClient from "@effect/platform/FetchHttpClient"
import * as NodeRuntime from "@effect/platform-node/NodeRuntime"
import * as Console from "effect/Console"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Logger from "effect/Logger"
import * as Redacted from "effect/Redacted"
import { identify, runWorker, validateBaseUrl, type WorkerCredentials } from "../WorkerSdk/WorkerSdk.js"
import { executeRun } from "./Agent.js"
import * as fs from "node:fs"
import { defaultTokenFile, parse, usage, UsageError } from "./Options.js"
import * as TokenFile from "./TokenFile.js"
import { webSocket } from "./WebSocket.js"

/**
 * `pipeline-worker`: a worker agent that executes the command of each run's
 * trigger, the run's input handed to it as data (`Agent.executeRun`).
 * Launched by bin/pipeline-worker.js; SIGTERM or SIGINT stop polling and give
 * running commands the grace period (NodeRuntime.runMain interrupts the fiber).
 */
const program = Effect.gen(function*() {
  const options = yield* parse(process.argv.slice(2), process.env)
  if (options.help) return yield* Console.log(usage)
  if (options.version) return yield* Console.log(`pipeline-worker ${packageVersion()}`)
  // Commands inherit this process's environment: they must never see the worker's credentials.
  delete process.env.PIPELINE_WORKER_TOKEN
  delete process.env.PIPELINE_REGISTRATION_TOKEN

  const url = yield* validateBaseUrl(options.url)
  const tokenFile = options.tokenFile ?? defaultTokenFile(url, process.env)
  let credentials: WorkerCredentials | undefined
  let fromFile = false
  if (options.token !== undefined) {
    // Without --worker-id, the service tells which worker the token belongs to.
    credentials = options.workerId !== undefined
      ? { workerId: options.workerId, token: Redacted.make(options.token) }
      : yield* identify(url, options.token)
  } else {
    const saved = yield* TokenFile.read(tokenFile)
    if (saved !== undefined && saved.url !== url && options.registrationToken === undefined) {
      return yield* Effect.fail(new UsageError({
        message: `${tokenFile} holds a worker token issued by ${saved.url}, not ${url}: set PIPELINE_REGISTRATION_TOKEN=wrk_... (or give --registration-token) for this server`
      }))
    }
    // A saved token is only used for the server that issued it, and an explicit
    // registration token wins unless the saved token came from that very one (a restart).
    const reusable = saved !== undefined && saved.url === url &&
      (options.registrationToken === undefined ||
        saved.registrationTokenHash === TokenFile.hashRegistrationToken(options.registrationToken))
    if (reusable) {
      credentials = { workerId: saved.workerId, token: saved.token }
      fromFile = true
      yield* Effect.logInfo("using the worker token saved by an earlier registration").pipe(
        Effect.annotateLogs({ tokenFile, workerId: saved.workerId })
      )
    } else if (options.registrationToken === undefined) {
      return yield* Effect.fail(new UsageError({
        message: `no credentials: set PIPELINE_REGISTRATION_TOKEN=wrk_... (or give --registration-token, or --token wkt_...); ${tokenFile} does not exist yet`
      }))
    }
  }

  yield* Effect.logInfo("pipeline-worker starting").pipe(
    Effect.annotateLogs({ url, concurrency: options.concurrency })
  )
  return yield* runWorker({
    baseUrl: url,
    credentials,
    registrationToken: options.registrationToken,
    label: options.label,
    concurrency: options.concurrency,
    shutdownGracePeriod: Duration.seconds(options.shutdownGraceSeconds),
    handler: (run) => executeRun(run, options.nonRetryableExitCodes),
    // Runs come over the worker channel when the service offers it, else by REST long poll.
    webSocket,
    onRegistered: (registered) =>
      TokenFile.write(tokenFile, registered, url, options.registrationToken).pipe(
        Effect.tap(() => Effect.logInfo("worker token saved for the next start").pipe(Effect.annotateLogs({ tokenFile }))),
        // The wrk_ token is spent either way; this session keeps working with the token in memory.
        Effect.catchAll((error) => Effect.logError(`${error.message}; the next start will need a new registration token`))
      )
  }).pipe(
    Effect.catchTag("WorkerUnauthorized", (error) =>
      Effect.fail(fromFile
        ? new UsageError({ message: `${error.message} (token from ${tokenFile}: delete that file to register again)` })
        : error)
    )
  )
})

/** The version in the package.json next to the sources (src/ or a build beside it). */
function packageVersion(): string {
  const file = new URL("../../package.json", import.meta.url)
  return (JSON.parse(fs.readFileSync(file, "utf8")) as { version: string }).version
}

program.pipe(
  // One clear line for every error that stops the agent; runMain then exits with code 1.
  Effect.tapError((error) => Effect.logError(`pipeline-worker stopped: ${error.message}`)),
  Effect.provide(FetchHttpClient.layer),
  Effect.provide(Logger.replace(Logger.defaultLogger, Logger.prettyLogger({ stderr: true }))),
  (effect) => NodeRuntime.runMain(effect, { disableErrorReporting: true, disablePrettyLogger: true })
)
