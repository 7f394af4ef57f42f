CREATE TABLE "audit_events" (
	"id" text PRIMARY KEY NOT NULL,
	"merchant_id" text,
	"livemode" boolean,
	"actor_type" text NOT NULL,
	"actor_id" text NOT NULL,
	"action" text NOT NULL,
	"target" text,
	"address" text NOT NULL,
	"outcome" text NOT NULL,
	"status_code" integer NOT NULL,
	"error_code" text,
	"request_id" text NOT NULL,
	"created_at" timestamp with time zone NOT NULL
);
--> statement-breakpoint
CREATE INDEX "audit_events_merchant_created" ON "audit_events" USING btree ("merchant_id","created_at","id");--> statement-breakpoint
CREATE INDEX "audit_events_created" ON "audit_events" USING btree ("created_at","id");--> statement-breakpoint
-- Append-only (hand-written; drizzle-kit does not model triggers): the audit log is never changed
-- or removed, as ledger rows are not (0004).
CREATE FUNCTION "audit_refuse_change"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  RAISE EXCEPTION 'audit events are append-only: % on % refused', TG_OP, TG_TABLE_NAME USING ERRCODE = 'restrict_violation';
END
$$;--> statement-breakpoint
CREATE TRIGGER "audit_events_immutable" BEFORE UPDATE OR DELETE ON "audit_events" FOR EACH ROW EXECUTE FUNCTION "audit_refuse_change"();--> statement-breakpoint
CREATE TRIGGER "audit_events_no_truncate" BEFORE TRUNCATE ON "audit_events" FOR EACH STATEMENT EXECUTE FUNCTION "audit_refuse_change"();
