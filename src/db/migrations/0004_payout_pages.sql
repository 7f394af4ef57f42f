CREATE TABLE "ledger_accounts" (
	"id" text PRIMARY KEY NOT NULL,
	"merchant_id" text NOT NULL,
	"livemode" boolean NOT NULL,
	"currency" text NOT NULL,
	"kind" text NOT NULL,
	"balance" bigint DEFAULT 0 NOT NULL,
	"created_at" timestamp with time zone NOT NULL,
	"updated_at" timestamp with time zone NOT NULL,
	CONSTRAINT "ledger_accounts_kind_valid" CHECK ("ledger_accounts"."kind" in ('available', 'reserved', 'in_flight', 'external')),
	CONSTRAINT "ledger_accounts_no_overdraft" CHECK ("ledger_accounts"."kind" = 'external' or "ledger_accounts"."balance" >= 0)
);
--> statement-breakpoint
CREATE TABLE "ledger_entries" (
	"id" text PRIMARY KEY NOT NULL,
	"transaction_id" text NOT NULL,
	"account_id" text NOT NULL,
	"currency" text NOT NULL,
	"amount" bigint NOT NULL,
	"created_at" timestamp with time zone NOT NULL,
	CONSTRAINT "ledger_entries_amount_nonzero" CHECK ("ledger_entries"."amount" <> 0)
);
--> statement-breakpoint
CREATE TABLE "ledger_transactions" (
	"id" text PRIMARY KEY NOT NULL,
	"merchant_id" text NOT NULL,
	"livemode" boolean NOT NULL,
	"currency" text NOT NULL,
	"kind" text NOT NULL,
	"reference" text,
	"idempotency_key" text NOT NULL,
	"created_at" timestamp with time zone NOT NULL
);
--> statement-breakpoint
CREATE TABLE "payout_page_access_codes" (
	"id" bigint PRIMARY KEY GENERATED ALWAYS AS IDENTITY (sequence name "payout_page_access_codes_id_seq" INCREMENT BY 1 MINVALUE 1 MAXVALUE 9223372036854775807 START WITH 1 CACHE 1),
	"payout_page_id" text NOT NULL,
	"code_hash" text NOT NULL,
	"attempts" integer DEFAULT 0 NOT NULL,
	"expires_at" timestamp with time zone NOT NULL,
	"consumed_at" timestamp with time zone,
	"created_at" timestamp with time zone NOT NULL
);
--> statement-breakpoint
CREATE TABLE "payout_page_sessions" (
	"token_hash" text PRIMARY KEY NOT NULL,
	"payout_page_id" text NOT NULL,
	"expires_at" timestamp with time zone NOT NULL,
	"created_at" timestamp with time zone NOT NULL
);
--> statement-breakpoint
CREATE TABLE "payout_page_status_history" (
	"id" bigint PRIMARY KEY GENERATED ALWAYS AS IDENTITY (sequence name "payout_page_status_history_id_seq" INCREMENT BY 1 MINVALUE 1 MAXVALUE 9223372036854775807 START WITH 1 CACHE 1),
	"payout_page_id" text NOT NULL,
	"merchant_id" text NOT NULL,
	"livemode" boolean NOT NULL,
	"from_status" text,
	"from_sub_status" text,
	"to_status" text NOT NULL,
	"to_sub_status" text NOT NULL,
	"action" text NOT NULL,
	"actor" text NOT NULL,
	"reason" text,
	"event_id" text,
	"created_at" timestamp with time zone NOT NULL
);
--> statement-breakpoint
CREATE TABLE "payout_pages" (
	"id" text PRIMARY KEY NOT NULL,
	"merchant_id" text NOT NULL,
	"livemode" boolean NOT NULL,
	"customer_id" text NOT NULL,
	"customer_reference_id" text NOT NULL,
	"customer_email_ciphertext" text NOT NULL,
	"client_reference_id" text NOT NULL,
	"amount" bigint NOT NULL,
	"funding_currency" text NOT NULL,
	"release_method" text NOT NULL,
	"status" text NOT NULL,
	"sub_status" text NOT NULL,
	"status_reason" text,
	"success_return_url" text,
	"failure_return_url" text,
	"metadata" jsonb NOT NULL,
	"expires_at" timestamp with time zone NOT NULL,
	"customer_confirmed_at" timestamp with time zone,
	"payout_method" jsonb,
	"destination" jsonb,
	"rail" text,
	"rail_reference" text,
	"submitted_at" timestamp with time zone,
	"created_at" timestamp with time zone NOT NULL,
	"updated_at" timestamp with time zone NOT NULL,
	CONSTRAINT "payout_pages_amount_range" CHECK ("payout_pages"."amount" between 1 and 100000000),
	CONSTRAINT "payout_pages_state_valid" CHECK (("payout_pages"."status", "payout_pages"."sub_status") in (('CREATED', 'AWAITING_CUSTOMER'), ('PENDING', 'KYC_REQUIRED'), ('PENDING', 'KYC_IN_REVIEW'), ('PENDING', 'AWAITING_RELEASE'), ('PROCESSING', 'SUBMITTED'), ('PROCESSED', 'PAID'), ('FAILED', 'KYC_REJECTED'), ('FAILED', 'PAYOUT_REJECTED'), ('CANCELED', 'CUSTOMER_DECLINED'), ('CANCELED', 'MERCHANT_CANCELED'), ('EXPIRED', 'NOT_COMPLETED')))
);
--> statement-breakpoint
ALTER TABLE "ledger_entries" ADD CONSTRAINT "ledger_entries_transaction_id_ledger_transactions_id_fk" FOREIGN KEY ("transaction_id") REFERENCES "public"."ledger_transactions"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "ledger_entries" ADD CONSTRAINT "ledger_entries_account_id_ledger_accounts_id_fk" FOREIGN KEY ("account_id") REFERENCES "public"."ledger_accounts"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "payout_page_access_codes" ADD CONSTRAINT "payout_page_access_codes_payout_page_id_payout_pages_id_fk" FOREIGN KEY ("payout_page_id") REFERENCES "public"."payout_pages"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "payout_page_sessions" ADD CONSTRAINT "payout_page_sessions_payout_page_id_payout_pages_id_fk" FOREIGN KEY ("payout_page_id") REFERENCES "public"."payout_pages"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "payout_page_status_history" ADD CONSTRAINT "payout_page_status_history_payout_page_id_payout_pages_id_fk" FOREIGN KEY ("payout_page_id") REFERENCES "public"."payout_pages"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "payout_pages" ADD CONSTRAINT "payout_pages_merchant_id_merchants_id_fk" FOREIGN KEY ("merchant_id") REFERENCES "public"."merchants"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "payout_pages" ADD CONSTRAINT "payout_pages_customer_id_customers_id_fk" FOREIGN KEY ("customer_id") REFERENCES "public"."customers"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
CREATE UNIQUE INDEX "ledger_accounts_owner_unique" ON "ledger_accounts" USING btree ("merchant_id","livemode","currency","kind");--> statement-breakpoint
CREATE INDEX "ledger_entries_transaction" ON "ledger_entries" USING btree ("transaction_id");--> statement-breakpoint
CREATE INDEX "ledger_entries_account" ON "ledger_entries" USING btree ("account_id","created_at");--> statement-breakpoint
CREATE UNIQUE INDEX "ledger_transactions_idempotency_unique" ON "ledger_transactions" USING btree ("idempotency_key");--> statement-breakpoint
CREATE INDEX "ledger_transactions_merchant_created" ON "ledger_transactions" USING btree ("merchant_id","livemode","created_at","id");--> statement-breakpoint
CREATE INDEX "ledger_transactions_reference" ON "ledger_transactions" USING btree ("reference");--> statement-breakpoint
CREATE INDEX "payout_page_access_codes_page" ON "payout_page_access_codes" USING btree ("payout_page_id","created_at");--> statement-breakpoint
CREATE INDEX "payout_page_sessions_page" ON "payout_page_sessions" USING btree ("payout_page_id");--> statement-breakpoint
CREATE INDEX "payout_page_status_history_page" ON "payout_page_status_history" USING btree ("payout_page_id","id");--> statement-breakpoint
CREATE UNIQUE INDEX "payout_pages_client_reference_unique" ON "payout_pages" USING btree ("merchant_id","livemode","client_reference_id");--> statement-breakpoint
CREATE INDEX "payout_pages_merchant_created" ON "payout_pages" USING btree ("merchant_id","livemode","created_at","id");--> statement-breakpoint
CREATE INDEX "payout_pages_customer_status" ON "payout_pages" USING btree ("customer_id","status");--> statement-breakpoint
-- Ledger guards (hand-written; drizzle-kit does not model triggers). Entries and transactions are
-- immutable, and a transaction whose entries do not sum to zero per currency cannot commit.
CREATE FUNCTION "ledger_refuse_change"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  RAISE EXCEPTION 'ledger rows are immutable: % on % refused', TG_OP, TG_TABLE_NAME USING ERRCODE = 'restrict_violation';
END
$$;--> statement-breakpoint
CREATE TRIGGER "ledger_entries_immutable" BEFORE UPDATE OR DELETE ON "ledger_entries" FOR EACH ROW EXECUTE FUNCTION "ledger_refuse_change"();--> statement-breakpoint
CREATE TRIGGER "ledger_entries_no_truncate" BEFORE TRUNCATE ON "ledger_entries" FOR EACH STATEMENT EXECUTE FUNCTION "ledger_refuse_change"();--> statement-breakpoint
CREATE TRIGGER "ledger_transactions_immutable" BEFORE UPDATE OR DELETE ON "ledger_transactions" FOR EACH ROW EXECUTE FUNCTION "ledger_refuse_change"();--> statement-breakpoint
CREATE TRIGGER "ledger_transactions_no_truncate" BEFORE TRUNCATE ON "ledger_transactions" FOR EACH STATEMENT EXECUTE FUNCTION "ledger_refuse_change"();--> statement-breakpoint
CREATE FUNCTION "ledger_check_balanced"() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
  unbalanced text;
BEGIN
  SELECT currency INTO unbalanced FROM "ledger_entries" WHERE transaction_id = NEW.transaction_id GROUP BY currency HAVING sum(amount) <> 0 LIMIT 1;
  IF unbalanced IS NOT NULL THEN
    RAISE EXCEPTION 'ledger transaction % does not balance in %', NEW.transaction_id, unbalanced USING ERRCODE = 'check_violation';
  END IF;
  RETURN NULL;
END
$$;--> statement-breakpoint
CREATE CONSTRAINT TRIGGER "ledger_entries_balanced" AFTER INSERT ON "ledger_entries" DEFERRABLE INITIALLY DEFERRED FOR EACH ROW EXECUTE FUNCTION "ledger_check_balanced"();
