DROP INDEX "jobs_pending_run_at";--> statement-breakpoint
CREATE INDEX "jobs_pending_queue_run_at" ON "jobs" USING btree ("queue","run_at") WHERE status = 'pending';