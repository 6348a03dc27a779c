-- The deliveries due now and not taken by a worker (the claim rule's isDue, src/delivery/claim-rule.ts),
-- counted: what KEDA's scaler reads (deploy/base/services/notifier.yaml), as a role that may read
-- this view and nothing else (docs/operations.md, "Provisioning"). A view reads its tables with its
-- owner's rights, so that role needs none on delivery. tools/provision/src/keda-reader.int.spec.ts
-- keeps it equal to the gauge webhook_deliveries_due.
CREATE VIEW delivery_backlog AS
  SELECT count(*)::int AS due
    FROM delivery d
   WHERE d.status = 'pending' AND d.next_attempt_at <= now() AND (d.leased_until IS NULL OR d.leased_until < now());
