DROP INDEX "jobs_pending_run_at";--> statement-breakpoint
DROP INDEX "jobs_dedupe_key_unique";--> statement-breakpoint
CREATE INDEX "jobs_pending_queue_run_at" ON "jobs" USING btree ("queue","run_at") WHERE status = 'pending';--> statement-breakpoint
CREATE UNIQUE INDEX "jobs_dedupe_key_unique" ON "jobs" USING btree ("dedupe_key") WHERE dedupe_key is not null;