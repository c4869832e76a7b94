/**
 * The default of every tunable that more than one configuration carries (the
 * service's `AppConfig`, the scheduler's `SchedulerConfig`, the embedding
 * layer's `PipelineTriggersConfig`): written once, so they cannot drift apart.
 */
export const tunableDefaults = {
  /** A worker not seen for this long is offline (its assigned runs go back to the queue). */
  workerOfflineAfterSeconds: 30,
  /** An assigned run not claimed within this goes back to the queue. */
  claimTimeoutSeconds: 30,
  /** A cancelled claimed or running run stays with its worker at most this long. */
  cancelGraceSeconds: 30,
  /** Webhook deliveries in flight at once per instance. */
  webhookConcurrency: 64,
  /** How long an instance holds a delivery before another may take it over. */
  webhookLeaseSeconds: 30,
  /** How long a graceful shutdown waits for work in flight. */
  shutdownTimeoutSeconds: 10
} as const
