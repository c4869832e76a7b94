-- The dashboard time series' closed hour and day buckets, computed once
-- (Dashboard/RunSeries.ts): a bucket's figures only ever count runs created or
-- ended inside it, and those rows never change once the bucket has closed, so
-- a month by day reads 30 rows instead of every run of the month.

CREATE TABLE run_series_buckets (
  environment_id uuid NOT NULL REFERENCES environments(id) ON DELETE CASCADE,
  bucket_seconds int NOT NULL,
  bucket_start timestamptz NOT NULL,
  queued int NOT NULL,
  succeeded int NOT NULL,
  failed int NOT NULL,
  timed_out int NOT NULL,
  cancelled int NOT NULL,
  p50_ms bigint,
  p95_ms bigint,
  PRIMARY KEY (environment_id, bucket_seconds, bucket_start)
);
