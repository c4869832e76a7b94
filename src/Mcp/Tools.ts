import { availableAtOf } from "../Runs/Delays.js"
import * as Data from "effect/Data"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import * as ParseResult from "effect/ParseResult"
import * as Queue from "effect/Queue"
import * as Schema from "effect/Schema"
import { CurrentActor } from "../Contract/Security.js"
import { decodeCursor, defaultLimit, page } from "../Db/Pagination.js"
import { wordIssues } from "../Contract/Domain/IssueWording.js"
import { Page } from "../Contract/Domain/Schemas.js"
import { Run, type RunRow, terminalStatuses, toRun } from "../Contract/Domain/Run.js"
import { RunHistory } from "../Runs/RunHistory.js"
import { RunCancellation } from "../Runs/Cancellation.js"
import { RunRequests } from "../Runs/RunRequests.js"
import { RunReplays } from "../Runs/Replays.js"
import { RunsRepo } from "../Runs/RunsRepo.js"
import { RunEvents } from "../Scheduler/RunFeed.js"
import { Policy } from "../Tenancy/Policy.js"
import { TriggersRepo } from "../Triggers/TriggersRepo.js"
import type { McpGrant } from "../Contract/McpApi.js"
import { ToolProgress } from "./Progress.js"
import {
  defaultWaitSeconds,
  DescribeTriggerArgs,
  GetRunArgs,
  inputSchemaOf,
  ListRunsArgs,
  maxWaitSeconds,
  ReplayRunArgs,
  RunTriggerArgs,
  runTriggerInputSchema,
  WaitForRunArgs
} from "./ToolSchemas.js"

/**
 * Tools whose call may wait (up to a minute): over Streamable HTTP their
 * answer is an SSE stream when the client accepts one (see `Mcp/Streaming`).
 */
export const waitingTools: ReadonlySet<string> = new Set(["wait_for_run"])

/** A failure the agent should read (a tool result with `isError: true`), not a protocol error. */
export class ToolFailure extends Data.TaggedError("ToolFailure")<{ readonly message: string }> {}

/** MCP's `CallToolResult`: the value as JSON text and as structured content. */
export interface ToolResult {
  readonly content: ReadonlyArray<{ readonly type: "text"; readonly text: string }>
  readonly structuredContent?: Record<string, unknown>
  readonly isError?: boolean
}

/** How `tools/list` shows a tool. */
export interface ToolListing {
  readonly name: string
  readonly title: string
  readonly description: string
  readonly inputSchema: Record<string, unknown>
  readonly annotations: {
    readonly readOnlyHint: boolean
    readonly destructiveHint: boolean
    readonly idempotentHint: boolean
    readonly openWorldHint: boolean
  }
}

const encodeRun = Schema.encode(Run)
const encodePage = Schema.encode(Page(Run))
const isTerminal = (row: RunRow) => (terminalStatuses as ReadonlyArray<string>).includes(row.status)
const runNotFound = new ToolFailure({ message: "run not found" })

const formatIssues = (error: ParseResult.ParseError): string => {
  const { fieldErrors, formErrors } = wordIssues(ParseResult.ArrayFormatter.formatErrorSync(error))
  return [...formErrors, ...Object.values(fieldErrors).flat()].join("; ")
}

const readOnly = { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false } as const

/**
 * The tools of the MCP endpoint. Each reaches only the granted trigger and
 * its runs (a run of another trigger is "run not found", as a missing one),
 * through the same services and role checks as the REST API, with the caller
 * as an operator of the trigger's environment (audit actor type `mcp`).
 */
export class McpTools extends Effect.Service<McpTools>()("Mcp/Tools", {
  effect: Effect.gen(function*() {
    const triggers = yield* TriggersRepo
    const repo = yield* RunsRepo
    const runRequests = yield* RunRequests
    const runEvents = yield* RunEvents
    const policy = yield* Policy
    const cancellation = yield* RunCancellation
    const replays = yield* RunReplays
    const history = yield* RunHistory

    // The grant reaches its trigger's runs only: any other run is not found.
    const findRun = (grant: McpGrant, runId: string): Effect.Effect<RunRow | undefined> =>
      Effect.map(history.find(runId), (row) => row?.trigger_id === grant.triggerId ? row : undefined)

    // The run object and its structured result (`output`, null until the worker sends one).
    const runResult = (row: RunRow) =>
      Effect.map(Effect.orDie(encodeRun(toRun(row))), (run): Record<string, unknown> => ({ ...run, output: row.output ?? null }))

    const describeTrigger = (grant: McpGrant) =>
      Effect.gen(function*() {
        yield* policy.requireRole(grant.environmentId, "viewer", "trigger")
        const row = yield* triggers.findActive(grant.triggerId)
        if (Option.isNone(row)) return yield* Effect.fail(new ToolFailure({ message: "trigger not found" }))
        const t = row.value
        return {
          id: t.id,
          environmentId: t.environmentId,
          name: t.name,
          description: t.description,
          defaultInput: t.input,
          // The JSON Schema run_trigger's input must match; null: any JSON.
          inputSchema: t.inputSchema,
          limits: {
            timeoutSeconds: t.timeoutSeconds,
            heartbeatTimeoutSeconds: t.heartbeatTimeoutSeconds,
            maxRetries: t.maxRetries,
            waitForRunMaxSeconds: maxWaitSeconds
          }
        }
      })

    // The access check is the service's (`RunRequests.request`), as for every front door.
    const runTrigger = (grant: McpGrant, args: typeof RunTriggerArgs.Type) =>
      Effect.flatMap(
        runRequests.request(
          grant.triggerId,
          Effect.map(availableAtOf({ delaySeconds: args.delaySeconds }), (availableAt) => ({
            input: "input" in args ? { value: args.input } : undefined,
            concurrencyKey: args.concurrencyKey,
            availableAt,
            priority: args.priority
          })),
          { idempotencyKey: args.idempotencyKey }
        ),
        (created) => runResult(created.run)
      )

    const getRun = (grant: McpGrant, args: typeof GetRunArgs.Type) =>
      Effect.gen(function*() {
        yield* policy.requireRole(grant.environmentId, "viewer", "trigger")
        const row = yield* findRun(grant, args.runId)
        if (row === undefined) return yield* Effect.fail(runNotFound)
        return yield* runResult(row)
      })

    /** The REST cancel (`POST /runs/{id}/cancel`), for a run of this trigger only. */
    const cancelRun = (grant: McpGrant, args: typeof GetRunArgs.Type) =>
      Effect.gen(function*() {
        const row = yield* findRun(grant, args.runId)
        if (row === undefined) return yield* Effect.fail(runNotFound)
        return yield* runResult(yield* cancellation.cancel(row.id))
      })

    /** The REST replay (`POST /runs/{id}/replay`), of a run of this trigger only; the run request checks the access. */
    const replayRun = (grant: McpGrant, args: typeof ReplayRunArgs.Type) =>
      Effect.gen(function*() {
        const row = yield* findRun(grant, args.runId)
        if (row === undefined) return yield* Effect.fail(runNotFound)
        const input = Effect.succeed("input" in args ? { value: args.input } : undefined)
        const created = yield* replays.replayOf(row, input, { idempotencyKey: args.idempotencyKey })
        return yield* runResult(created.run)
      })

    const listRuns = (grant: McpGrant, args: typeof ListRunsArgs.Type) =>
      Effect.gen(function*() {
        yield* policy.requireRole(grant.environmentId, "viewer", "trigger")
        const before = yield* decodeCursor(args.cursor).pipe(
          Effect.mapError(() => new ToolFailure({ message: "cursor: invalid cursor" }))
        )
        const limit = args.limit ?? defaultLimit
        const rows = yield* repo.list({ triggerId: grant.triggerId, status: args.status, before, limit })
        const result = page(rows.map(toRun), limit)
        return (yield* Effect.orDie(encodePage(result))) as unknown as Record<string, unknown>
      })

    /**
     * Wakes when this instance ends the run (RunEvents) and otherwise reads
     * the run once a second: another instance may end it, and its event is
     * published there only.
     */
    const waitForRun = (grant: McpGrant, args: typeof WaitForRunArgs.Type) =>
      Effect.scoped(Effect.gen(function*() {
        yield* policy.requireRole(grant.environmentId, "viewer", "trigger")
        // Subscribed before the first read, so an end published in between is not missed.
        const ended = yield* runEvents.subscribe
        const first = yield* findRun(grant, args.runId)
        if (first === undefined) return yield* Effect.fail(runNotFound)
        const seconds = args.timeoutSeconds ?? defaultWaitSeconds
        if (isTerminal(first) || seconds === 0) return yield* runResult(first)
        // Each read is reported to an SSE answer's client (progress notifications); a JSON answer has none.
        const progress = yield* Effect.serviceOption(ToolProgress)
        const report = (row: RunRow) =>
          Option.match(progress, {
            onNone: () => Effect.void,
            onSome: (p) => p.report({ message: `run ${row.id} is ${row.status}`, totalSeconds: seconds })
          })
        yield* report(first)
        const endedHere = Queue.take(ended).pipe(Effect.repeat({ until: (run) => run.id === first.id }))
        const untilTerminal: Effect.Effect<RunRow> = Effect.race(endedHere, Effect.sleep(Duration.seconds(1))).pipe(
          Effect.zipRight(findRun(grant, first.id)),
          Effect.map((row) => row ?? first),
          Effect.tap((row) => isTerminal(row) ? Effect.void : report(row)),
          Effect.repeat({ until: isTerminal })
        )
        const last = yield* untilTerminal.pipe(
          Effect.timeout(Duration.seconds(seconds)),
          Effect.catchTag("TimeoutException", () => Effect.map(findRun(grant, first.id), (row) => row ?? first))
        )
        return yield* runResult(last)
      }))

    interface Tool {
      readonly listing: ToolListing
      readonly call: (grant: McpGrant, args: unknown) => Effect.Effect<Record<string, unknown>, ToolFailure, CurrentActor>
    }

    const tool = <A, I>(
      listing: Omit<ToolListing, "inputSchema">,
      schema: Schema.Schema<A, I, never>,
      run: (grant: McpGrant, args: A) => Effect.Effect<Record<string, unknown>, ToolFailure | { readonly message: string }, CurrentActor>
    ): Tool => ({
      listing: { ...listing, inputSchema: inputSchemaOf(schema) },
      call: (grant, args) =>
        Schema.decodeUnknown(schema)(args ?? {}, { errors: "all", onExcessProperty: "ignore" }).pipe(
          Effect.mapError((error) => new ToolFailure({ message: `invalid arguments: ${formatIssues(error)}` })),
          Effect.flatMap((decoded) => run(grant, decoded)),
          // The services' errors (their own, or NotFound and Forbidden from the access policy) become the tool's plain message.
          Effect.mapError((error) => error instanceof ToolFailure ? error : new ToolFailure({ message: error.message }))
        )
    })

    const tools: ReadonlyArray<Tool> = [
      tool({
        name: "describe_trigger",
        title: "Describe the pipeline trigger",
        description: "The pipeline trigger this connection may run: its name, description, the default input a run " +
          "gets when run_trigger is given none, and its limits (run timeout, heartbeat timeout, retries).",
        annotations: readOnly
      }, DescribeTriggerArgs, (grant) => describeTrigger(grant)),
      tool({
        name: "run_trigger",
        title: "Start a pipeline run",
        description: "Starts a new run of the pipeline and answers it (status `queued`; a worker picks it up). " +
          "Give `input` to override the trigger's default input; it must match the trigger's input schema (shown as " +
          "this tool's `input`), else the call fails naming the path that did not. Pass an `idempotencyKey` to retry safely: a repeat " +
          "with the same key answers the first run instead of starting another. `delaySeconds` holds the run until then " +
          "(at most 30 days); `priority` (seconds, -86400 to 86400) ranks it ahead of runs requested up to that much earlier. " +
          "Then call wait_for_run with its id.",
        annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: true }
      }, RunTriggerArgs, runTrigger),
      tool({
        name: "get_run",
        title: "Read a run",
        description: "A run of this trigger by id: status (queued, assigned, claimed, running, succeeded, failed, " +
          "timed_out, cancelled, expired), availableAt while it waits for its time, timings, the worker's short message, error message, cost and input; while it is queued, " +
          "waitReason says why it waits (delayed, retry_backoff, no_worker_online, pinned_worker_offline, pinned_worker_draining, workers_full, " +
          "trigger_limit, key_limit with its concurrencyKey, pool_limit with waitPool).",
        annotations: readOnly
      }, GetRunArgs, getRun),
      tool({
        name: "list_runs",
        title: "List runs",
        description: "Runs of this trigger, newest first, optionally only those in one `status` (queued runs say why they " +
          "wait in `waitReason`). `limit` is 1 to 200 " +
          "(50 by default); pass the answer's `nextCursor` as `cursor` for the next page (null: no more).",
        annotations: readOnly
      }, ListRunsArgs, listRuns),
      tool({
        name: "wait_for_run",
        title: "Wait for a run to end",
        description: `Waits up to \`timeoutSeconds\` (0 to ${maxWaitSeconds}, ${defaultWaitSeconds} by default) for a ` +
          "run of this trigger to end, and answers the run: ended when its status is succeeded, failed, timed_out, cancelled or expired; " +
          "otherwise the wait ran out and you may call wait_for_run again.",
        annotations: readOnly
      }, WaitForRunArgs, waitForRun),
      tool({
        name: "cancel_run",
        title: "Cancel a run",
        description: "Cancels a run of this trigger. A queued or assigned run ends `cancelled` at once; a claimed or " +
          "running one gets `cancelRequestedAt` and ends `cancelled` when its worker stops it (or after the grace " +
          "period). A run that has already ended cannot be cancelled (an error says so). Cancelled runs are not retried.",
        annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: true, openWorldHint: false }
      }, GetRunArgs, cancelRun),
      tool({
        name: "replay_run",
        title: "Replay a run",
        description: "Starts a new run of this trigger with the same input as a run of it (or the `input` given) and " +
          "answers it, its `replayOfRunId` naming the replayed run. Any run can be replayed, ended or not. The input " +
          "must match the trigger's input schema. Pass an `idempotencyKey` to retry safely.",
        annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: true }
      }, ReplayRunArgs, replayRun)
    ]

    const byName = new Map(tools.map((t) => [t.listing.name, t]))

    /** Every tool as `tools/list` shows it, without a trigger's own input schema. */
    const listings: ReadonlyArray<ToolListing> = tools.map((t) => t.listing)

    /**
     * The tools as `tools/list` shows them to the grant: `run_trigger`'s
     * `input` is the trigger's `inputSchema` when it declares one, so an
     * agent sees the shape it must send (the service checks it anyway).
     */
    const listingsFor = (grant: McpGrant): Effect.Effect<ReadonlyArray<ToolListing>> =>
      Effect.map(triggers.findActive(grant.triggerId), (trigger) =>
        Option.match(trigger, {
          onNone: () => listings,
          onSome: (t) =>
            t.inputSchema === null ? listings : listings.map((listing) =>
              listing.name === "run_trigger"
                ? { ...listing, inputSchema: runTriggerInputSchema(t.inputSchema, t.input !== null) }
                : listing
            )
        }))

    /**
     * Runs a tool as the grant's MCP actor; undefined when there is no tool of
     * that name (a protocol error). Failures are results with `isError: true`.
     */
    const call = (grant: McpGrant, name: string, args: unknown): Effect.Effect<ToolResult> | undefined => {
      const found = byName.get(name)
      if (found === undefined) return undefined
      const actor = { _tag: "Mcp", triggerId: grant.triggerId, environmentId: grant.environmentId, role: grant.role } as const
      return found.call(grant, args).pipe(
        Effect.map((value): ToolResult => ({
          content: [{ type: "text", text: JSON.stringify(value, null, 2) }],
          structuredContent: value
        })),
        Effect.catchTag("ToolFailure", (failure) =>
          Effect.succeed<ToolResult>({ content: [{ type: "text", text: failure.message }], isError: true })),
        Effect.provideService(CurrentActor, actor),
        Effect.withSpan("Mcp.tool", { attributes: { tool: name } }),
        Effect.annotateLogs({ tool: name, triggerId: grant.triggerId })
      )
    }

    return { listings, listingsFor, call } as const
  })
}) {}
