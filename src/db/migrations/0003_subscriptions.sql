CREATE TABLE "entitlements" (
	"id" text PRIMARY KEY NOT NULL,
	"merchant_id" text NOT NULL,
	"livemode" boolean NOT NULL,
	"customer_id" text NOT NULL,
	"subscription_id" text NOT NULL,
	"product_id" text NOT NULL,
	"invoice_id" text,
	"start_period" timestamp with time zone NOT NULL,
	"end_period" timestamp with time zone NOT NULL,
	"idempotency_key" text NOT NULL,
	"created_at" timestamp with time zone NOT NULL,
	"updated_at" timestamp with time zone
);
--> statement-breakpoint
CREATE TABLE "invoices" (
	"id" text PRIMARY KEY NOT NULL,
	"merchant_id" text NOT NULL,
	"livemode" boolean NOT NULL,
	"subscription_id" text NOT NULL,
	"customer_id" text NOT NULL,
	"amount" integer NOT NULL,
	"currency" text NOT NULL,
	"status" text NOT NULL,
	"payment_id" text NOT NULL,
	"period_number" integer NOT NULL,
	"period_start" timestamp with time zone NOT NULL,
	"period_end" timestamp with time zone NOT NULL,
	"paid_at" timestamp with time zone NOT NULL,
	"created_at" timestamp with time zone NOT NULL
);
--> statement-breakpoint
CREATE TABLE "subscriptions" (
	"id" text PRIMARY KEY NOT NULL,
	"merchant_id" text NOT NULL,
	"livemode" boolean NOT NULL,
	"customer_id" text NOT NULL,
	"product_id" text NOT NULL,
	"status" text NOT NULL,
	"interval" text NOT NULL,
	"interval_count" integer NOT NULL,
	"amount" integer NOT NULL,
	"currency" text NOT NULL,
	"page_id" text NOT NULL,
	"card_token_id" text,
	"anchor_at" timestamp with time zone NOT NULL,
	"anchor_period_index" integer NOT NULL,
	"current_period_start" timestamp with time zone NOT NULL,
	"current_period_end" timestamp with time zone NOT NULL,
	"paid_periods" integer NOT NULL,
	"failed_renewal_attempts" integer DEFAULT 0 NOT NULL,
	"pending_renewal_payment_id" text,
	"next_renewal_attempt_at" timestamp with time zone,
	"last_decline_reason" text,
	"cancel_at_period_end" boolean DEFAULT false NOT NULL,
	"canceled_at" timestamp with time zone,
	"ended_at" timestamp with time zone,
	"created_at" timestamp with time zone NOT NULL,
	"updated_at" timestamp with time zone NOT NULL
);
--> statement-breakpoint
ALTER TABLE "entitlements" ADD CONSTRAINT "entitlements_merchant_id_merchants_id_fk" FOREIGN KEY ("merchant_id") REFERENCES "public"."merchants"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "entitlements" ADD CONSTRAINT "entitlements_subscription_id_subscriptions_id_fk" FOREIGN KEY ("subscription_id") REFERENCES "public"."subscriptions"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "invoices" ADD CONSTRAINT "invoices_merchant_id_merchants_id_fk" FOREIGN KEY ("merchant_id") REFERENCES "public"."merchants"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "invoices" ADD CONSTRAINT "invoices_subscription_id_subscriptions_id_fk" FOREIGN KEY ("subscription_id") REFERENCES "public"."subscriptions"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "subscriptions" ADD CONSTRAINT "subscriptions_merchant_id_merchants_id_fk" FOREIGN KEY ("merchant_id") REFERENCES "public"."merchants"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "subscriptions" ADD CONSTRAINT "subscriptions_customer_id_customers_id_fk" FOREIGN KEY ("customer_id") REFERENCES "public"."customers"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
CREATE UNIQUE INDEX "entitlements_idempotency_key_unique" ON "entitlements" USING btree ("idempotency_key");--> statement-breakpoint
CREATE INDEX "entitlements_merchant_created" ON "entitlements" USING btree ("merchant_id","created_at","id");--> statement-breakpoint
CREATE INDEX "entitlements_merchant_customer_created" ON "entitlements" USING btree ("merchant_id","customer_id","created_at","id");--> statement-breakpoint
CREATE INDEX "entitlements_merchant_subscription_created" ON "entitlements" USING btree ("merchant_id","subscription_id","created_at","id");--> statement-breakpoint
CREATE UNIQUE INDEX "invoices_subscription_period_unique" ON "invoices" USING btree ("subscription_id","period_number");--> statement-breakpoint
CREATE UNIQUE INDEX "invoices_payment_unique" ON "invoices" USING btree ("payment_id");--> statement-breakpoint
CREATE INDEX "invoices_merchant_created" ON "invoices" USING btree ("merchant_id","livemode","created_at","id");--> statement-breakpoint
CREATE UNIQUE INDEX "subscriptions_page_unique" ON "subscriptions" USING btree ("page_id");--> statement-breakpoint
CREATE INDEX "subscriptions_merchant_created" ON "subscriptions" USING btree ("merchant_id","livemode","created_at","id");--> statement-breakpoint
CREATE INDEX "subscriptions_customer" ON "subscriptions" USING btree ("customer_id");