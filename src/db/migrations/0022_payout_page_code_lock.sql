ALTER TABLE "payout_pages" ADD COLUMN "wrong_codes" integer DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE "payout_pages" ADD COLUMN "locked_at" timestamp with time zone;