-- Each running service process (an instance) records that it is alive, every
-- second, and when it stopped (Scheduler/ServicePresence.ts). A start reads
-- them to tell whether the service was away and since when: run deadlines
-- that passed while no instance was running get one window of grace, so a
-- worker that kept its run through the outage can reach the service again.

CREATE TABLE service_instances (
  id uuid PRIMARY KEY,
  started_at timestamptz NOT NULL,
  last_seen_at timestamptz NOT NULL,
  -- Set by a graceful stop; a crashed instance is known by a stale last_seen_at.
  stopped_at timestamptz
);
