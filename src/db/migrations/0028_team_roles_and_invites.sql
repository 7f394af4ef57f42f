CREATE TABLE "dashboard_invites" (
	"id" text PRIMARY KEY NOT NULL,
	"merchant_id" text NOT NULL,
	"email" text NOT NULL,
	"role" text NOT NULL,
	"token_hash" text NOT NULL,
	"invited_by" text NOT NULL,
	"created_at" timestamp with time zone NOT NULL,
	"sent_at" timestamp with time zone NOT NULL,
	"expires_at" timestamp with time zone NOT NULL,
	"accepted_at" timestamp with time zone,
	"revoked_at" timestamp with time zone,
	CONSTRAINT "dashboard_invites_role_known" CHECK ("dashboard_invites"."role" in ('owner', 'admin', 'developer', 'support', 'viewer'))
);
--> statement-breakpoint
-- Hand-written: every existing dashboard user becomes an owner; later users are always given a role by the code (no default).
ALTER TABLE "dashboard_users" ADD COLUMN "role" text DEFAULT 'owner' NOT NULL;--> statement-breakpoint
ALTER TABLE "dashboard_users" ALTER COLUMN "role" DROP DEFAULT;--> statement-breakpoint
ALTER TABLE "dashboard_invites" ADD CONSTRAINT "dashboard_invites_merchant_id_merchants_id_fk" FOREIGN KEY ("merchant_id") REFERENCES "public"."merchants"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
CREATE UNIQUE INDEX "dashboard_invites_token_hash_unique" ON "dashboard_invites" USING btree ("token_hash");--> statement-breakpoint
CREATE UNIQUE INDEX "dashboard_invites_open_unique" ON "dashboard_invites" USING btree ("merchant_id","email") WHERE "dashboard_invites"."accepted_at" is null and "dashboard_invites"."revoked_at" is null;--> statement-breakpoint
CREATE INDEX "dashboard_invites_merchant" ON "dashboard_invites" USING btree ("merchant_id","created_at");--> statement-breakpoint
CREATE INDEX "dashboard_users_merchant" ON "dashboard_users" USING btree ("merchant_id");--> statement-breakpoint
ALTER TABLE "dashboard_users" ADD CONSTRAINT "dashboard_users_role_known" CHECK ("dashboard_users"."role" in ('owner', 'admin', 'developer', 'support', 'viewer'));