ALTER TABLE "merchants" ADD COLUMN "rate_limit_per_second" integer;--> statement-breakpoint
ALTER TABLE "merchants" ADD COLUMN "rate_limit_burst" integer;