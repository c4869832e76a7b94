-- Run logs stored as chunks: one row per append call (per run per group),
-- holding that call's lines, numbered first_seq .. last_seq, instead of one
-- row per line. A row per line cost its own index entry, tuple header and
-- foreign-key check on runs; a chunk pays them once for up to 1,000 lines.
--
-- The lines are three parallel arrays (line i: streams[i], texts[i], ats[i],
-- seq first_seq + i - 1), not a jsonb array of objects: written straight
-- from one statement's parameters with no per-line keys to store, and read
-- back by unnest() as typed rows (timestamptz stays a timestamp, not a string
-- in JSON) so a page is the overlapping chunks cut to exactly its seq range.
-- A chunk holds at most 1,000 lines (an append call's most), so a page reads
-- at most two chunks beyond the lines it returns.
CREATE TABLE run_log_chunks (
  run_id uuid NOT NULL REFERENCES runs(id) ON DELETE CASCADE,
  first_seq bigint NOT NULL,
  last_seq bigint NOT NULL,
  streams text[] NOT NULL,
  texts text[] NOT NULL,
  ats timestamptz[] NOT NULL,
  PRIMARY KEY (run_id, first_seq),
  CHECK (cardinality(texts) = last_seq - first_seq + 1
    AND cardinality(streams) = cardinality(texts) AND cardinality(ats) = cardinality(texts))
);

-- The lines stored so far, 1,000 consecutive lines of a run to a chunk (a
-- run's seqs have no gap, so each group is a full range).
INSERT INTO run_log_chunks (run_id, first_seq, last_seq, streams, texts, ats)
SELECT run_id, min(seq), max(seq), array_agg(stream ORDER BY seq), array_agg(text ORDER BY seq), array_agg(at ORDER BY seq)
FROM run_logs
GROUP BY run_id, (seq - 1) / 1000;

DROP TABLE run_logs;
