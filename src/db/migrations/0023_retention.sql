CREATE TABLE "retention_settings" (
	"category" text PRIMARY KEY NOT NULL,
	"value" integer NOT NULL,
	"updated_at" timestamp with time zone NOT NULL
);
--> statement-breakpoint
ALTER TABLE "emails" ADD COLUMN "content_purged_at" timestamp with time zone;--> statement-breakpoint
ALTER TABLE "customers" ADD COLUMN "kyc_details_purged_at" timestamp with time zone;--> statement-breakpoint
CREATE INDEX "emails_content_retention" ON "emails" USING btree ("created_at") WHERE content_purged_at is null;--> statement-breakpoint
CREATE INDEX "customers_kyc_retention" ON "customers" USING btree ("updated_at") WHERE erased_at is null;--> statement-breakpoint
CREATE INDEX "webhook_delivery_attempts_attempted_at" ON "webhook_delivery_attempts" USING btree ("attempted_at");