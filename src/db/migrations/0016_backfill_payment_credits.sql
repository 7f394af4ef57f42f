-- Card payments that succeeded before card payments were posted to the ledger (migration 0013) have
-- no credit on the merchant's balance. The credit is posted by the `payments.backfill-credits` job
-- (src/modules/payments/backfill.ts: the ledger's own postings, idempotent on `<payment id>:payment`,
-- exactly once per payment); this enqueues it once, on databases that hold a succeeded payment.
-- Operators can also run it by hand: `paysail balance backfill-payments`.
INSERT INTO "jobs" ("id", "queue", "payload", "status", "run_at", "attempts", "max_attempts", "dedupe_key", "created_at", "updated_at")
SELECT 'job_backfill_payment_credits', 'payments.backfill-credits', '{}'::jsonb, 'pending', now(), 0, 20, 'payments.backfill-credits:0016', now(), now()
WHERE EXISTS (SELECT 1 FROM "payments" WHERE "status" = 'SUCCEEDED')
ON CONFLICT DO NOTHING;
