ALTER TABLE "customers" ADD COLUMN "erased_at" timestamp with time zone;--> statement-breakpoint
ALTER TABLE "kyc_verifications" ADD COLUMN "applicant_deleted_at" timestamp with time zone;