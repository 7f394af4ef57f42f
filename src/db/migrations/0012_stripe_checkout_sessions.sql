ALTER TABLE "payments" ADD COLUMN "save_card" boolean DEFAULT false NOT NULL;--> statement-breakpoint
ALTER TABLE "subscriptions" ADD COLUMN "renewal_page_id" text;--> statement-breakpoint
CREATE UNIQUE INDEX "subscriptions_renewal_page_unique" ON "subscriptions" USING btree ("renewal_page_id");--> statement-breakpoint
UPDATE "payments" SET "save_card" = true FROM "payment_pages" WHERE "payments"."page_id" = "payment_pages"."id" AND "payments"."kind" = 'CHECKOUT' AND "payment_pages"."subscription" IS NOT NULL;
