CREATE TABLE "card_tokens" (
	"id" text PRIMARY KEY NOT NULL,
	"merchant_id" text NOT NULL,
	"livemode" boolean NOT NULL,
	"customer_id" text NOT NULL,
	"processor" text NOT NULL,
	"processor_token" text NOT NULL,
	"payment_id" text NOT NULL,
	"bin" text NOT NULL,
	"last4" text NOT NULL,
	"scheme" text NOT NULL,
	"card_type" text NOT NULL,
	"issuer" text NOT NULL,
	"exp_month" integer NOT NULL,
	"exp_year" integer NOT NULL,
	"created_at" timestamp with time zone NOT NULL
);
--> statement-breakpoint
CREATE TABLE "fraud_imports" (
	"id" text PRIMARY KEY NOT NULL,
	"network" text NOT NULL,
	"livemode" boolean NOT NULL,
	"total_rows" integer NOT NULL,
	"created_count" integer NOT NULL,
	"duplicate_count" integer NOT NULL,
	"unmatched_count" integer NOT NULL,
	"unmatched" jsonb NOT NULL,
	"created_at" timestamp with time zone NOT NULL
);
--> statement-breakpoint
CREATE TABLE "fraud_reports" (
	"payment_id" text PRIMARY KEY NOT NULL,
	"merchant_id" text NOT NULL,
	"livemode" boolean NOT NULL,
	"page_id" text,
	"client_reference_id" text NOT NULL,
	"fraud_amount_usd" numeric(14, 2) NOT NULL,
	"fraud_reason" text NOT NULL,
	"fraud_type" text,
	"network" text NOT NULL,
	"source" text NOT NULL,
	"import_id" text,
	"fraud_issue_date" timestamp with time zone NOT NULL,
	"transaction_date" timestamp with time zone NOT NULL,
	"issuing_bank" text NOT NULL,
	"card_scheme_type" text NOT NULL,
	"bin" text NOT NULL,
	"last4" text NOT NULL,
	"pii" jsonb NOT NULL,
	"created_at" timestamp with time zone NOT NULL
);
--> statement-breakpoint
CREATE TABLE "payment_pages" (
	"id" text PRIMARY KEY NOT NULL,
	"merchant_id" text NOT NULL,
	"livemode" boolean NOT NULL,
	"status" text NOT NULL,
	"client_reference_id" text NOT NULL,
	"customer_id" text NOT NULL,
	"customer_email_ciphertext" text NOT NULL,
	"amount" integer NOT NULL,
	"currency" text NOT NULL,
	"success_return_url" text,
	"failure_return_url" text,
	"metadata" jsonb NOT NULL,
	"subscription" jsonb,
	"expires_at" timestamp with time zone NOT NULL,
	"attempt_payment_id" text,
	"payment_id" text,
	"subscription_id" text,
	"paid_at" timestamp with time zone,
	"expired_at" timestamp with time zone,
	"created_at" timestamp with time zone NOT NULL,
	"updated_at" timestamp with time zone NOT NULL
);
--> statement-breakpoint
CREATE TABLE "payments" (
	"id" text PRIMARY KEY NOT NULL,
	"merchant_id" text NOT NULL,
	"livemode" boolean NOT NULL,
	"kind" text NOT NULL,
	"page_id" text,
	"customer_id" text NOT NULL,
	"amount" integer NOT NULL,
	"currency" text NOT NULL,
	"status" text NOT NULL,
	"processor" text NOT NULL,
	"processor_reference" text,
	"network_transaction_id" text,
	"bin" text NOT NULL,
	"last4" text NOT NULL,
	"scheme" text,
	"card_type" text,
	"issuer" text,
	"exp_month" integer NOT NULL,
	"exp_year" integer NOT NULL,
	"cardholder_name_ciphertext" text,
	"card_token_id" text,
	"decline_reason" text,
	"created_at" timestamp with time zone NOT NULL,
	"updated_at" timestamp with time zone NOT NULL,
	"decided_at" timestamp with time zone
);
--> statement-breakpoint
ALTER TABLE "card_tokens" ADD CONSTRAINT "card_tokens_merchant_id_merchants_id_fk" FOREIGN KEY ("merchant_id") REFERENCES "public"."merchants"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "card_tokens" ADD CONSTRAINT "card_tokens_customer_id_customers_id_fk" FOREIGN KEY ("customer_id") REFERENCES "public"."customers"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "fraud_reports" ADD CONSTRAINT "fraud_reports_payment_id_payments_id_fk" FOREIGN KEY ("payment_id") REFERENCES "public"."payments"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "fraud_reports" ADD CONSTRAINT "fraud_reports_merchant_id_merchants_id_fk" FOREIGN KEY ("merchant_id") REFERENCES "public"."merchants"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "payment_pages" ADD CONSTRAINT "payment_pages_merchant_id_merchants_id_fk" FOREIGN KEY ("merchant_id") REFERENCES "public"."merchants"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "payment_pages" ADD CONSTRAINT "payment_pages_customer_id_customers_id_fk" FOREIGN KEY ("customer_id") REFERENCES "public"."customers"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "payments" ADD CONSTRAINT "payments_merchant_id_merchants_id_fk" FOREIGN KEY ("merchant_id") REFERENCES "public"."merchants"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "payments" ADD CONSTRAINT "payments_page_id_payment_pages_id_fk" FOREIGN KEY ("page_id") REFERENCES "public"."payment_pages"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "payments" ADD CONSTRAINT "payments_customer_id_customers_id_fk" FOREIGN KEY ("customer_id") REFERENCES "public"."customers"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "card_tokens_customer" ON "card_tokens" USING btree ("customer_id","created_at");--> statement-breakpoint
CREATE UNIQUE INDEX "card_tokens_processor_token_unique" ON "card_tokens" USING btree ("processor","processor_token");--> statement-breakpoint
CREATE INDEX "fraud_reports_merchant_mode_issued" ON "fraud_reports" USING btree ("merchant_id","livemode","fraud_issue_date" DESC NULLS LAST,"payment_id");--> statement-breakpoint
CREATE INDEX "fraud_reports_merchant_issued" ON "fraud_reports" USING btree ("merchant_id","fraud_issue_date" DESC NULLS LAST,"payment_id");--> statement-breakpoint
CREATE UNIQUE INDEX "payment_pages_client_reference_unique" ON "payment_pages" USING btree ("merchant_id","livemode","client_reference_id");--> statement-breakpoint
CREATE INDEX "payment_pages_merchant_created" ON "payment_pages" USING btree ("merchant_id","livemode","created_at","id");--> statement-breakpoint
CREATE UNIQUE INDEX "payments_one_success_per_page" ON "payments" USING btree ("page_id") WHERE status = 'SUCCEEDED' and kind = 'CHECKOUT';--> statement-breakpoint
CREATE INDEX "payments_page" ON "payments" USING btree ("page_id","created_at");--> statement-breakpoint
CREATE INDEX "payments_merchant_created" ON "payments" USING btree ("merchant_id","livemode","created_at","id");--> statement-breakpoint
CREATE INDEX "payments_network_transaction" ON "payments" USING btree ("network_transaction_id");--> statement-breakpoint
CREATE INDEX "payments_card_amount_date" ON "payments" USING btree ("bin","last4","amount","decided_at") WHERE status = 'SUCCEEDED';