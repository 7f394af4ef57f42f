CREATE TABLE "payout_attempts" (
	"id" text PRIMARY KEY NOT NULL,
	"payout_page_id" text NOT NULL,
	"merchant_id" text NOT NULL,
	"livemode" boolean NOT NULL,
	"number" integer NOT NULL,
	"rail" text NOT NULL,
	"status" text NOT NULL,
	"rail_reference" text,
	"reason" text,
	"transaction_hash" text,
	"submitted_at" timestamp with time zone,
	"paid_at" timestamp with time zone,
	"finished_at" timestamp with time zone,
	"created_at" timestamp with time zone NOT NULL,
	"updated_at" timestamp with time zone NOT NULL,
	CONSTRAINT "payout_attempts_status_valid" CHECK ("payout_attempts"."status" in ('SUBMITTING', 'SUBMITTED', 'PAID', 'REJECTED', 'RETURNED'))
);
--> statement-breakpoint
ALTER TABLE "payout_pages" DROP CONSTRAINT "payout_pages_state_valid";--> statement-breakpoint
ALTER TABLE "payout_pages" ADD COLUMN "attempt" integer DEFAULT 1 NOT NULL;--> statement-breakpoint
ALTER TABLE "payout_attempts" ADD CONSTRAINT "payout_attempts_payout_page_id_payout_pages_id_fk" FOREIGN KEY ("payout_page_id") REFERENCES "public"."payout_pages"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
CREATE UNIQUE INDEX "payout_attempts_page_number" ON "payout_attempts" USING btree ("payout_page_id","number");--> statement-breakpoint
CREATE UNIQUE INDEX "payout_attempts_one_live" ON "payout_attempts" USING btree ("payout_page_id") WHERE "payout_attempts"."status" in ('SUBMITTING', 'SUBMITTED', 'PAID');--> statement-breakpoint
CREATE INDEX "payout_attempts_status_submitted" ON "payout_attempts" USING btree ("status","submitted_at");--> statement-breakpoint
ALTER TABLE "payout_pages" ADD CONSTRAINT "payout_pages_state_valid" CHECK (("payout_pages"."status", "payout_pages"."sub_status") in (('CREATED', 'AWAITING_CUSTOMER'), ('PENDING', 'KYC_REQUIRED'), ('PENDING', 'KYC_IN_REVIEW'), ('PENDING', 'AWAITING_RELEASE'), ('PROCESSING', 'SUBMITTED'), ('PROCESSED', 'PAID'), ('FAILED', 'KYC_REJECTED'), ('FAILED', 'PAYOUT_REJECTED'), ('FAILED', 'PAYOUT_RETURNED'), ('CANCELED', 'CUSTOMER_DECLINED'), ('CANCELED', 'MERCHANT_CANCELED'), ('EXPIRED', 'NOT_COMPLETED')));