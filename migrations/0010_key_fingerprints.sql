-- Fingerprints of the keys the instances on this database use (never the
-- keys): an instance started with another JWT_SECRET or SECRETS_KEY is
-- refused at start instead of failing every session or webhook later.

CREATE TABLE key_fingerprints (
  purpose text PRIMARY KEY CHECK (purpose IN ('jwt', 'secrets')),
  fingerprint text NOT NULL,
  updated_at timestamptz NOT NULL DEFAULT now()
);
