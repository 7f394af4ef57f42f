DROP INDEX "customers_merchant_created";--> statement-breakpoint
DROP INDEX "payment_pages_merchant_created";--> statement-breakpoint
DROP INDEX "payout_pages_merchant_created";--> statement-breakpoint
DROP INDEX "subscriptions_merchant_created";--> statement-breakpoint
CREATE INDEX "customers_merchant_all_created" ON "customers" USING btree ("merchant_id","created_at" DESC NULLS LAST,"id" DESC NULLS LAST);--> statement-breakpoint
CREATE INDEX "customers_merchant_kyc_created" ON "customers" USING btree ("merchant_id","kyc_status","created_at" DESC NULLS LAST,"id" DESC NULLS LAST);--> statement-breakpoint
CREATE INDEX "payment_pages_merchant_all_created" ON "payment_pages" USING btree ("merchant_id","created_at" DESC NULLS LAST,"id" DESC NULLS LAST);--> statement-breakpoint
CREATE INDEX "payment_pages_merchant_status_created" ON "payment_pages" USING btree ("merchant_id","status","created_at" DESC NULLS LAST,"id" DESC NULLS LAST);--> statement-breakpoint
CREATE INDEX "payment_pages_customer_created" ON "payment_pages" USING btree ("customer_id","created_at" DESC NULLS LAST,"id" DESC NULLS LAST);--> statement-breakpoint
CREATE INDEX "payout_pages_merchant_all_created" ON "payout_pages" USING btree ("merchant_id","created_at" DESC NULLS LAST,"id" DESC NULLS LAST);--> statement-breakpoint
CREATE INDEX "payout_pages_merchant_status_created" ON "payout_pages" USING btree ("merchant_id","status","created_at" DESC NULLS LAST,"id" DESC NULLS LAST);--> statement-breakpoint
CREATE INDEX "payout_pages_customer_created" ON "payout_pages" USING btree ("customer_id","created_at" DESC NULLS LAST,"id" DESC NULLS LAST);--> statement-breakpoint
CREATE INDEX "subscriptions_merchant_all_created" ON "subscriptions" USING btree ("merchant_id","created_at" DESC NULLS LAST,"id" DESC NULLS LAST);--> statement-breakpoint
CREATE INDEX "subscriptions_merchant_status_created" ON "subscriptions" USING btree ("merchant_id","status","created_at" DESC NULLS LAST,"id" DESC NULLS LAST);--> statement-breakpoint
CREATE INDEX "subscriptions_customer_created" ON "subscriptions" USING btree ("customer_id","created_at" DESC NULLS LAST,"id" DESC NULLS LAST);--> statement-breakpoint
CREATE INDEX "customers_merchant_created" ON "customers" USING btree ("merchant_id","livemode","created_at" DESC NULLS LAST,"id" DESC NULLS LAST);--> statement-breakpoint
CREATE INDEX "payment_pages_merchant_created" ON "payment_pages" USING btree ("merchant_id","livemode","created_at" DESC NULLS LAST,"id" DESC NULLS LAST);--> statement-breakpoint
CREATE INDEX "payout_pages_merchant_created" ON "payout_pages" USING btree ("merchant_id","livemode","created_at" DESC NULLS LAST,"id" DESC NULLS LAST);--> statement-breakpoint
CREATE INDEX "subscriptions_merchant_created" ON "subscriptions" USING btree ("merchant_id","livemode","created_at" DESC NULLS LAST,"id" DESC NULLS LAST);