-- Subscription options (docs/webhooks.md): the body's form (payload), heartbeats, and a previous
-- signing secret kept during a rotation's overlap.
--
-- payload: 'full' (the Task as the clinic left it, as before) or 'id-only' (ids and state only).
ALTER TABLE subscription ADD COLUMN payload text NOT NULL DEFAULT 'full';
-- heartbeat_seconds: NULL = no heartbeats. heartbeat_due_at: when the next one is looked at; the
-- claim moves it forward (UPDATE ... RETURNING under FOR NO KEY UPDATE SKIP LOCKED), so of several
-- notifiers only one sends a heartbeat.
ALTER TABLE subscription ADD COLUMN heartbeat_seconds integer;
ALTER TABLE subscription ADD COLUMN heartbeat_due_at timestamptz(3);
-- The secret before the latest rotation, sealed like sealed_secret (for subscription:previous-secret:<id>),
-- valid until previous_secret_expires_at, then deleted.
ALTER TABLE subscription ADD COLUMN sealed_previous_secret bytea;
ALTER TABLE subscription ADD COLUMN previous_secret_expires_at timestamptz(3);

CREATE INDEX subscription_heartbeat_due_idx ON subscription (heartbeat_due_at);
CREATE INDEX subscription_previous_secret_expiry_idx ON subscription (previous_secret_expires_at);
