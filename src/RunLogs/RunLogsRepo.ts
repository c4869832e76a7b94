import * as SqlClient from "@effect/sql/SqlClient"
import type { SqlError } from "@effect/sql/SqlError"
import * as Effect from "effect/Effect"
import type { RunStatus } from "../Contract/Domain/Run.js"
import type { LogLine, LogStream } from "../Contract/RunLogsApi.js"
import { dateOfMillis, isoOf } from "./LineTimes.js"

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
  /** Epoch milliseconds (a float8: parsed as a number, not by the driver's timestamp parser). */
  readonly at_ms: number | string
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
  at: dateOfMillis(Number(row.at_ms))
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

/**
 * Lines a chunk row holds at most (an append call's most, `maxLinesPerCall`):
 * a page of lines reads at most this many beyond its own at either end.
 */
export const chunkLines = 1000

/** The SQL of run logs (`run_log_chunks`, `run_log_state`); the rules live in `RunLogs`. */
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
     * Stores the lines of any number of runs in one statement: each batch (an
     * append call's lines) as one chunk row, or several when it holds more
     * than `chunkLines`. The chunks travel as one JSON parameter that
     * `json_to_recordset` turns into rows with their arrays: one value to
     * send whatever the number of chunks, parsed once. Each chunk names its
     * run by an index into the statement's run ids.
     */
    const insertLines = (batches: ReadonlyArray<{ readonly runId: string; readonly lines: ReadonlyArray<NewLine> }>): Effect.Effect<void, SqlError> => {
      const chunks: Array<{ r: number; f: number; l: number; s: Array<string>; t: Array<string>; a: Array<string> }> = []
      batches.forEach((batch, i) => {
        for (let from = 0; from < batch.lines.length; from += chunkLines) {
          const lines = batch.lines.slice(from, from + chunkLines)
          chunks.push({
            r: i + 1,
            f: lines[0]!.seq,
            l: lines.at(-1)!.seq,
            s: lines.map((line) => line.stream),
            t: lines.map((line) => line.text),
            a: lines.map((line) => isoOf(line.at))
          })
        }
      })
      if (chunks.length === 0) return Effect.void
      return sql`
        INSERT INTO run_log_chunks (run_id, first_seq, last_seq, streams, texts, ats)
        SELECT (${batches.map((batch) => batch.runId)}::uuid[])[c.r], c.f, c.l, c.s, c.t, c.a
        FROM json_to_recordset(${JSON.stringify(chunks)}::json)
          AS c(r int, f bigint, l bigint, s text[], t text[], a timestamptz[])`.pipe(Effect.asVoid)
    }

    /**
     * The first seq of the chunk holding line `seq` (or, past the log's end,
     * of its last chunk): with `first_seq` bounded on both sides a read
     * touches only the chunks it needs, however long the log.
     */
    const chunkStart = (runId: string, seq: number) =>
      sql`(SELECT coalesce(max(first_seq), 0) FROM run_log_chunks WHERE run_id = ${runId} AND first_seq <= ${seq}::bigint)`

    /** Rewrites one line's text (the marker, as the count of what was dropped grows). */
    const rewriteLine = (runId: string, seq: number, text: string): Effect.Effect<void, SqlError> =>
      sql`
        UPDATE run_log_chunks SET texts[(${seq}::bigint - first_seq + 1)::int] = ${text}
        WHERE run_id = ${runId} AND first_seq = ${chunkStart(runId, seq)} AND last_seq >= ${seq}::bigint`.pipe(Effect.asVoid)

    /**
     * Up to `limit` lines after `after`, in order. A run's lines are numbered
     * without gap, so the page is the range `after + 1 .. after + limit`:
     * the chunks from the one holding `after + 1` to the one holding the
     * last, each cut (array slices) to the part of it in the range.
     */
    const page = (runId: string, after: number, limit: number): Effect.Effect<ReadonlyArray<LogLine>, SqlError> => {
      const last = after + limit
      return Effect.map(
        sql<LineRow>`
          SELECT c.first_seq + cut.lo + u.o - 2 AS seq, u.stream, u.text, (extract(epoch FROM u.at) * 1000)::float8 AS at_ms
          FROM run_log_chunks c
          CROSS JOIN LATERAL (SELECT greatest(${after}::bigint - c.first_seq + 2, 1)::int AS lo,
                                     (${last}::bigint - c.first_seq + 1)::int AS hi) cut
          CROSS JOIN LATERAL unnest(c.streams[cut.lo:cut.hi], c.texts[cut.lo:cut.hi], c.ats[cut.lo:cut.hi])
            WITH ORDINALITY AS u(stream, text, at, o)
          WHERE c.run_id = ${runId} AND c.first_seq >= ${chunkStart(runId, after + 1)}
            AND c.first_seq <= ${last}::bigint AND c.last_seq > ${after}::bigint
          ORDER BY seq LIMIT ${limit}`,
        (rows) => rows.map(toLine)
      )
    }

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
