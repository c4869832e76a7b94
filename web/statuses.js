// The run states the service knows, in the order a run goes through them.
export const runStatuses = ["queued", "assigned", "claimed", "running", "succeeded", "failed", "timed_out", "cancelled"]
export const terminalStatuses = ["succeeded", "failed", "timed_out", "cancelled"]
