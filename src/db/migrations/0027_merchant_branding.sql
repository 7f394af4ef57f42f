CREATE TABLE "merchant_branding" (
	"merchant_id" text PRIMARY KEY NOT NULL,
	"display_name" text,
	"brand_color" text,
	"support_email" text,
	"support_url" text,
	"logo_sha256" text,
	"logo_type" text,
	"logo" "bytea",
	"updated_at" timestamp with time zone NOT NULL
);
--> statement-breakpoint
ALTER TABLE "merchant_branding" ADD CONSTRAINT "merchant_branding_merchant_id_merchants_id_fk" FOREIGN KEY ("merchant_id") REFERENCES "public"."merchants"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "merchant_branding_logo" ON "merchant_branding" USING btree ("logo_sha256");