-- Custom SQL migration file, put your code below! --
-- Payout pages that were PROCESSING when payout attempts arrived (0008_payout_attempts) have no
-- attempt row, so neither the submit and settle jobs nor the reconciliation (which reads attempts)
-- would ever finish them. Each gets the attempt it would have had: its id is the page id, the
-- idempotency key those pages were submitted under (rails then keyed payouts on the page id), so a
-- lookup at the rail finds the payout already sent and nothing is sent twice. Submitted ones
-- (a rail reference) are SUBMITTED, the others SUBMITTING; the reconciliation then settles or
-- submits them. Before 0008 only the sandbox rail paid (live releases were refused), hence the
-- default rail. Idempotent: pages that already have an attempt are left alone.
INSERT INTO "payout_attempts" ("id", "payout_page_id", "merchant_id", "livemode", "number", "rail", "status", "rail_reference", "submitted_at", "created_at", "updated_at")
SELECT p."id", p."id", p."merchant_id", p."livemode", p."attempt", coalesce(p."rail", 'sandbox-rail'),
       CASE WHEN p."rail_reference" IS NULL THEN 'SUBMITTING' ELSE 'SUBMITTED' END,
       p."rail_reference", p."submitted_at", coalesce(p."submitted_at", p."updated_at"), now()
FROM "payout_pages" p
WHERE p."status" = 'PROCESSING'
  AND (p."livemode" = false OR p."rail" IS NOT NULL)
  AND NOT EXISTS (SELECT 1 FROM "payout_attempts" a WHERE a."payout_page_id" = p."id")
ON CONFLICT DO NOTHING;
