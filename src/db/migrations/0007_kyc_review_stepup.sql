CREATE TABLE "kyc_reviews" (
	"id" text PRIMARY KEY NOT NULL,
	"merchant_id" text NOT NULL,
	"livemode" boolean NOT NULL,
	"verification_id" text NOT NULL,
	"customer_id" text NOT NULL,
	"decision" text NOT NULL,
	"reason" text NOT NULL,
	"actor" text NOT NULL,
	"created_at" timestamp with time zone NOT NULL
);
--> statement-breakpoint
ALTER TABLE "customers" ADD COLUMN "kyc_reason" text;--> statement-breakpoint
ALTER TABLE "kyc_verifications" ADD COLUMN "provider_applicant_id" text;--> statement-breakpoint
ALTER TABLE "kyc_verifications" ADD COLUMN "stage" text DEFAULT 'DATA' NOT NULL;--> statement-breakpoint
ALTER TABLE "kyc_verifications" ADD COLUMN "provider_outcome" text;--> statement-breakpoint
ALTER TABLE "kyc_verifications" ADD COLUMN "check_requested_at" timestamp with time zone;--> statement-breakpoint
ALTER TABLE "kyc_verifications" ADD COLUMN "breakdown" jsonb;--> statement-breakpoint
ALTER TABLE "kyc_verifications" ADD COLUMN "decided_by" text;--> statement-breakpoint
ALTER TABLE "kyc_reviews" ADD CONSTRAINT "kyc_reviews_verification_id_kyc_verifications_id_fk" FOREIGN KEY ("verification_id") REFERENCES "public"."kyc_verifications"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
CREATE UNIQUE INDEX "kyc_reviews_verification_unique" ON "kyc_reviews" USING btree ("verification_id");--> statement-breakpoint
CREATE INDEX "kyc_reviews_merchant_created" ON "kyc_reviews" USING btree ("merchant_id","livemode","created_at");--> statement-breakpoint
CREATE INDEX "kyc_verifications_provider_reference" ON "kyc_verifications" USING btree ("provider","provider_reference");