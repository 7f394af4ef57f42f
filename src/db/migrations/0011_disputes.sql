CREATE TABLE "disputes" (
	"id" text PRIMARY KEY NOT NULL,
	"merchant_id" text NOT NULL,
	"livemode" boolean NOT NULL,
	"payment_id" text NOT NULL,
	"page_id" text,
	"processor" text NOT NULL,
	"processor_reference" text NOT NULL,
	"amount" integer NOT NULL,
	"currency" text NOT NULL,
	"reason" text NOT NULL,
	"status" text NOT NULL,
	"evidence_due_by" timestamp with time zone,
	"closed_at" timestamp with time zone,
	"created_at" timestamp with time zone NOT NULL,
	"updated_at" timestamp with time zone NOT NULL
);
--> statement-breakpoint
ALTER TABLE "disputes" ADD CONSTRAINT "disputes_merchant_id_merchants_id_fk" FOREIGN KEY ("merchant_id") REFERENCES "public"."merchants"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "disputes" ADD CONSTRAINT "disputes_payment_id_payments_id_fk" FOREIGN KEY ("payment_id") REFERENCES "public"."payments"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
CREATE UNIQUE INDEX "disputes_processor_reference_unique" ON "disputes" USING btree ("processor","processor_reference");--> statement-breakpoint
CREATE INDEX "disputes_merchant_created" ON "disputes" USING btree ("merchant_id","livemode","created_at","id");--> statement-breakpoint
CREATE INDEX "disputes_page_created" ON "disputes" USING btree ("page_id","created_at","id");--> statement-breakpoint
CREATE INDEX "disputes_payment" ON "disputes" USING btree ("payment_id");