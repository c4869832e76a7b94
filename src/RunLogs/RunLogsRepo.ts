import * as SqlClient from "@effect/sql/SqlClient"
import type { SqlError } from "@effect/sql/SqlError"
import * as Effect from "effect/Effect"
import type { RunStatus } from "../Contract/Domain/Run.js"
import type { LogLine, LogStream } from "../Contract/RunLogsApi.js"

/** Where a run's log stands (its `run_log_state` row). */
export interface LogState {
  readonly lastSeq: number
  readonly bytes: number
  readonly droppedBytes: number
  readonly droppedLines: number
  readonly markerSeq: number | null
  readonly workerSeq: number
}

/** A line to insert, numbered in its run's log. */
export interface NewLine {
  readonly seq: number
  readonly stream: LogStream
  readonly text: string
  readonly at: Date
}

/** The run a log belongs to, as the log's reads and writes need it. */
export interface LogRun {
  readonly environmentId: string
  readonly workerId: string | null
  readonly status: RunStatus
}

interface LineRow {
  readonly seq: string | number
  readonly stream: LogStream
  readonly text: string
  readonly at: Date | string
}

interface RunRow {
  readonly id: string
  readonly environment_id: string
  readonly worker_id: string | null
  readonly status: RunStatus
}

interface StateRow {
  readonly run_id: string
  readonly last_seq: string | number
  readonly bytes: string | number
  readonly dropped_bytes: string | number
  readonly dropped_lines: string | number
  readonly marker_seq: string | number | null
  readonly worker_seq: string | number
}

const toLine = (row: LineRow): LogLine => ({
  seq: Number(row.seq),
  stream: row.stream,
  text: row.text,
  at: row.at instanceof Date ? row.at : new Date(row.at)
})

const toRun = (row: RunRow): LogRun => ({ environmentId: row.environment_id, workerId: row.worker_id, status: row.status })

const toState = (row: StateRow): LogState => ({
  lastSeq: Number(row.last_seq),
  bytes: Number(row.bytes),
  droppedBytes: Number(row.dropped_bytes),
  droppedLines: Number(row.dropped_lines),
  markerSeq: row.marker_seq === null ? null : Number(row.marker_seq),
  workerSeq: Number(row.worker_seq)
})

/** The SQL of run logs (`run_logs`, `run_log_state`); the rules live in `RunLogs`. */
export class RunLogsRepo extends Effect.Service<RunLogsRepo>()("RunLogs/Repo", {
  effect: Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient

    /** The run, or undefined (the reads of a log; an append locks its runs with `lockRuns`). */
    const findRun = (runId: string): Effect.Effect<LogRun | undefined, SqlError> =>
      Effect.map(
        sql<RunRow>`SELECT id, environment_id, worker_id, status FROM runs WHERE id = ${runId}`,
        (rows) => rows[0] === undefined ? undefined : toRun(rows[0])
      )

    /**
     * The runs, each held (FOR SHARE, until commit) against a transition, so
     * none can end while lines are stored for it. A run a transition holds
     * right now is skipped, not waited for (`locked`: the append tries again
     * next round): appends never queue behind the lifecycle, nor it behind
     * them for longer than one statement, and a group of appends cannot
     * deadlock with a transition of several runs. `missing`: no such run.
     */
    const lockRuns = (runIds: ReadonlyArray<string>): Effect.Effect<{
      readonly runs: ReadonlyMap<string, LogRun>
      readonly locked: ReadonlySet<string>
    }, SqlError> =>
      Effect.gen(function*() {
        const rows = yield* sql<RunRow>`
          SELECT id, environment_id, worker_id, status FROM runs
          WHERE id = ANY(${runIds}::uuid[]) ORDER BY id FOR SHARE SKIP LOCKED`
        const runs = new Map(rows.map((row) => [row.id, toRun(row)]))
        const absent = runIds.filter((id) => !runs.has(id))
        if (absent.length === 0) return { runs, locked: new Set<string>() }
        // Skipped (held by a transition) or gone: only those that still exist are tried again.
        const existing = yield* sql<{ id: string }>`SELECT id FROM runs WHERE id = ANY(${absent}::uuid[])`
        return { runs, locked: new Set(existing.map((row) => row.id)) }
      })

    /**
     * The runs' log states, each locked until commit (created on a run's first
     * append), in run id order, so that appends to one run take turns and two
     * groups of appends (two instances) cannot deadlock.
     */
    const lockStates = (runIds: ReadonlyArray<string>): Effect.Effect<Map<string, LogState>, SqlError> =>
      Effect.gen(function*() {
        const read = (ids: ReadonlyArray<string>) =>
          sql<StateRow>`
            SELECT run_id, last_seq, bytes, dropped_bytes, dropped_lines, marker_seq, worker_seq
            FROM run_log_state WHERE run_id = ANY(${ids}::uuid[]) ORDER BY run_id FOR UPDATE`
        const states = new Map((yield* read(runIds)).map((row) => [row.run_id, toState(row)]))
        const fresh = runIds.filter((id) => !states.has(id))
        if (fresh.length > 0) {
          yield* sql`INSERT INTO run_log_state (run_id) SELECT unnest(${fresh}::uuid[]) ON CONFLICT (run_id) DO NOTHING`
          for (const row of yield* read(fresh)) states.set(row.run_id, toState(row))
        }
        return states
      })

    /** Stores the runs' log states (one statement). */
    const saveStates = (states: ReadonlyArray<readonly [runId: string, state: LogState]>): Effect.Effect<void, SqlError> =>
      states.length === 0 ? Effect.void : sql`
        UPDATE run_log_state s SET last_seq = n.last_seq, bytes = n.bytes, dropped_bytes = n.dropped_bytes,
          dropped_lines = n.dropped_lines, marker_seq = n.marker_seq, worker_seq = n.worker_seq
        FROM unnest(${states.map(([id]) => id)}::uuid[], ${states.map(([, s]) => s.lastSeq)}::bigint[],
                    ${states.map(([, s]) => s.bytes)}::bigint[], ${states.map(([, s]) => s.droppedBytes)}::bigint[],
                    ${states.map(([, s]) => s.droppedLines)}::bigint[], ${states.map(([, s]) => s.markerSeq)}::bigint[],
                    ${states.map(([, s]) => s.workerSeq)}::bigint[])
          AS n(run_id, last_seq, bytes, dropped_bytes, dropped_lines, marker_seq, worker_seq)
        WHERE s.run_id = n.run_id`.pipe(Effect.asVoid)

    /**
     * Inserts the lines of any number of runs in one statement. Each line
     * names its run by an index into the statement's run ids: a small integer
     * to send and parse per line, not a uuid.
     */
    const insertLines = (batches: ReadonlyArray<{ readonly runId: string; readonly lines: ReadonlyArray<NewLine> }>): Effect.Effect<void, SqlError> => {
      const lines = batches.flatMap((batch) => batch.lines)
      if (lines.length === 0) return Effect.void
      const runIndexes = batches.flatMap((batch, i) => batch.lines.map(() => i + 1))
      return sql`
        INSERT INTO run_logs (run_id, seq, stream, text, at)
        SELECT (${batches.map((batch) => batch.runId)}::uuid[])[l.run], l.seq, l.stream, l.text, l.at
        FROM unnest(${runIndexes}::int[], ${lines.map((l) => l.seq)}::bigint[], ${lines.map((l) => l.stream)}::text[],
                    ${lines.map((l) => l.text)}::text[], ${lines.map((l) => l.at.toISOString())}::timestamptz[])
          AS l(run, seq, stream, text, at)`.pipe(Effect.asVoid)
    }

    /** Rewrites one line's text (the marker, as the count of what was dropped grows). */
    const rewriteLine = (runId: string, seq: number, text: string): Effect.Effect<void, SqlError> =>
      sql`UPDATE run_logs SET text = ${text} WHERE run_id = ${runId} AND seq = ${seq}`.pipe(Effect.asVoid)

    /**
     * Up to `limit` lines after `after`, in order. A run's lines are numbered
     * without gap, so the page is the range `after + 1 .. after + limit`:
     * bounded on both sides, the statement reads that page's rows whatever
     * plan it gets. With `seq > after` alone, the plan chosen on a young
     * table (a bitmap scan, then a sort for the LIMIT) read every line after
     * `after`: a follower or a page far from the log's end cost the whole
     * rest of the log per page.
     */
    const page = (runId: string, after: number, limit: number): Effect.Effect<ReadonlyArray<LogLine>, SqlError> =>
      Effect.map(
        sql<LineRow>`
          SELECT seq, stream, text, at FROM run_logs
          WHERE run_id = ${runId} AND seq > ${after} AND seq <= ${after + limit}
          ORDER BY seq LIMIT ${limit}`,
        (rows) => rows.map(toLine)
      )

    return {
      findRun,
      lockRuns,
      lockStates,
      saveStates,
      insertLines,
      rewriteLine,
      page,
      withTransaction: sql.withTransaction
    } as const
  })
}) {}
