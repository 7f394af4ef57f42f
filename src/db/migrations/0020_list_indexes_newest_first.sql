-- The lists order newest first with ORDER BY created_at DESC, id DESC, which is DESC NULLS FIRST; the
-- indexes were built DESC NULLS LAST, which PostgreSQL cannot use for that order, so every list sorted
-- all of the merchant's rows for each page (bench/lists.ts found it). The same indexes, in the order
-- the queries ask for.
DROP INDEX "customers_merchant_created";--> statement-breakpoint
DROP INDEX "customers_merchant_all_created";--> statement-breakpoint
DROP INDEX "customers_merchant_kyc_created";--> statement-breakpoint
DROP INDEX "customers_merchant_email_created";--> statement-breakpoint
DROP INDEX "payment_pages_merchant_created";--> statement-breakpoint
DROP INDEX "payment_pages_merchant_all_created";--> statement-breakpoint
DROP INDEX "payment_pages_merchant_status_created";--> statement-breakpoint
DROP INDEX "payment_pages_customer_created";--> statement-breakpoint
DROP INDEX "payout_pages_merchant_created";--> statement-breakpoint
DROP INDEX "payout_pages_merchant_all_created";--> statement-breakpoint
DROP INDEX "payout_pages_merchant_status_created";--> statement-breakpoint
DROP INDEX "payout_pages_customer_created";--> statement-breakpoint
DROP INDEX "subscriptions_merchant_created";--> statement-breakpoint
DROP INDEX "subscriptions_merchant_all_created";--> statement-breakpoint
DROP INDEX "subscriptions_merchant_status_created";--> statement-breakpoint
DROP INDEX "subscriptions_customer_created";--> statement-breakpoint
CREATE INDEX "customers_merchant_created" ON "customers" USING btree ("merchant_id","livemode","created_at" DESC NULLS FIRST,"id" DESC NULLS FIRST);--> statement-breakpoint
CREATE INDEX "customers_merchant_all_created" ON "customers" USING btree ("merchant_id","created_at" DESC NULLS FIRST,"id" DESC NULLS FIRST);--> statement-breakpoint
CREATE INDEX "customers_merchant_kyc_created" ON "customers" USING btree ("merchant_id","kyc_status","created_at" DESC NULLS FIRST,"id" DESC NULLS FIRST);--> statement-breakpoint
CREATE INDEX "customers_merchant_email_created" ON "customers" USING btree ("merchant_id","email_lookup","created_at" DESC NULLS FIRST,"id" DESC NULLS FIRST);--> statement-breakpoint
CREATE INDEX "payment_pages_merchant_created" ON "payment_pages" USING btree ("merchant_id","livemode","created_at" DESC NULLS FIRST,"id" DESC NULLS FIRST);--> statement-breakpoint
CREATE INDEX "payment_pages_merchant_all_created" ON "payment_pages" USING btree ("merchant_id","created_at" DESC NULLS FIRST,"id" DESC NULLS FIRST);--> statement-breakpoint
CREATE INDEX "payment_pages_merchant_status_created" ON "payment_pages" USING btree ("merchant_id","status","created_at" DESC NULLS FIRST,"id" DESC NULLS FIRST);--> statement-breakpoint
CREATE INDEX "payment_pages_customer_created" ON "payment_pages" USING btree ("customer_id","created_at" DESC NULLS FIRST,"id" DESC NULLS FIRST);--> statement-breakpoint
CREATE INDEX "payout_pages_merchant_created" ON "payout_pages" USING btree ("merchant_id","livemode","created_at" DESC NULLS FIRST,"id" DESC NULLS FIRST);--> statement-breakpoint
CREATE INDEX "payout_pages_merchant_all_created" ON "payout_pages" USING btree ("merchant_id","created_at" DESC NULLS FIRST,"id" DESC NULLS FIRST);--> statement-breakpoint
CREATE INDEX "payout_pages_merchant_status_created" ON "payout_pages" USING btree ("merchant_id","status","created_at" DESC NULLS FIRST,"id" DESC NULLS FIRST);--> statement-breakpoint
CREATE INDEX "payout_pages_customer_created" ON "payout_pages" USING btree ("customer_id","created_at" DESC NULLS FIRST,"id" DESC NULLS FIRST);--> statement-breakpoint
CREATE INDEX "subscriptions_merchant_created" ON "subscriptions" USING btree ("merchant_id","livemode","created_at" DESC NULLS FIRST,"id" DESC NULLS FIRST);--> statement-breakpoint
CREATE INDEX "subscriptions_merchant_all_created" ON "subscriptions" USING btree ("merchant_id","created_at" DESC NULLS FIRST,"id" DESC NULLS FIRST);--> statement-breakpoint
CREATE INDEX "subscriptions_merchant_status_created" ON "subscriptions" USING btree ("merchant_id","status","created_at" DESC NULLS FIRST,"id" DESC NULLS FIRST);--> statement-breakpoint
CREATE INDEX "subscriptions_customer_created" ON "subscriptions" USING btree ("customer_id","created_at" DESC NULLS FIRST,"id" DESC NULLS FIRST);