ALTER TABLE "payment_pages" ADD COLUMN "description" text;--> statement-breakpoint
ALTER TABLE "payment_pages" ADD COLUMN "line_items" jsonb;