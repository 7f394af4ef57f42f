ALTER TABLE "customers" ADD COLUMN "email_lookup" text;--> statement-breakpoint
CREATE INDEX "customers_merchant_email_created" ON "customers" USING btree ("merchant_id","email_lookup","created_at" DESC NULLS LAST,"id" DESC NULLS LAST);--> statement-breakpoint
-- Customers written before this migration have no e-mail lookup hash yet: it needs the key ring, so
-- the `customers.backfill-email-lookup` job (src/modules/customers/sealing.ts) computes it from
-- the sealed PII, in id order, once; this enqueues it on databases that hold customers.
INSERT INTO "jobs" ("id", "queue", "payload", "status", "run_at", "attempts", "max_attempts", "dedupe_key", "created_at", "updated_at")
SELECT 'job_backfill_customer_email_lookup', 'customers.backfill-email-lookup', '{}'::jsonb, 'pending', now(), 0, 20, 'customers.backfill-email-lookup:0019', now(), now()
WHERE EXISTS (SELECT 1 FROM "customers")
ON CONFLICT DO NOTHING;
