ALTER TABLE "payments" ADD COLUMN "save_card" boolean DEFAULT false NOT NULL;--> statement-breakpoint
UPDATE "payments" SET "save_card" = true FROM "payment_pages" WHERE "payments"."page_id" = "payment_pages"."id" AND "payments"."kind" = 'CHECKOUT' AND "payment_pages"."subscription" IS NOT NULL;
