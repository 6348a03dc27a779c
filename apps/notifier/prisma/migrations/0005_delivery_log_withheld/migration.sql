-- A delivery the notifier did not send because its subscriber may no longer see the Task
-- (docs/webhooks.md, "Authorization at delivery time"): status 'withheld', why (party-disabled,
-- request-erased) and when.
ALTER TABLE delivery ADD COLUMN withheld_reason text;
ALTER TABLE delivery ADD COLUMN withheld_at timestamptz(3);

-- The subscription's last failed attempt (docs/webhooks.md, "Delivery log and manual retry"),
-- written with the attempts, so that reading a subscription never scans its attempts.
ALTER TABLE subscription ADD COLUMN last_error_at timestamptz(3);
ALTER TABLE subscription ADD COLUMN last_error_status_code integer;
ALTER TABLE subscription ADD COLUMN last_error text;
