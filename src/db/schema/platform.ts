import { sql } from 'drizzle-orm';
import { boolean, index, integer, jsonb, pgTable, primaryKey, text, timestamp, uniqueIndex } from 'drizzle-orm/pg-core';

const timestamptz = (name: string) => timestamp(name, { withTimezone: true, mode: 'date' });

/** Platform-wide settings (for example the hash of a generated admin key). */
export const platformSettings = pgTable('platform_settings', {
  key: text('key').primaryKey(),
  value: text('value').notNull(),
  updatedAt: timestamptz('updated_at').notNull(),
});

/**
 * The job queue and outbox. A job is enqueued inside the caller's transaction, so it exists if and
 * only if the state change that asked for it committed. Workers claim with FOR UPDATE SKIP LOCKED
 * and a lease (`locked_until`); an expired lease makes the job claimable again.
 */
export const jobs = pgTable(
  'jobs',
  {
    id: text('id').primaryKey(),
    queue: text('queue').notNull(),
    payload: jsonb('payload').notNull(),
    status: text('status', { enum: ['pending', 'running', 'succeeded', 'dead'] }).notNull(),
    runAt: timestamptz('run_at').notNull(),
    attempts: integer('attempts').notNull().default(0),
    maxAttempts: integer('max_attempts').notNull(),
    lockedUntil: timestamptz('locked_until'),
    lockedBy: text('locked_by'),
    lastError: text('last_error'),
    /** Makes "enqueue exactly once" a unique constraint rather than a check. */
    dedupeKey: text('dedupe_key'),
    createdAt: timestamptz('created_at').notNull(),
    updatedAt: timestamptz('updated_at').notNull(),
    finishedAt: timestamptz('finished_at'),
  },
  (table) => [
    // Partial: most jobs have no key, and every row version of those would otherwise add an entry.
    uniqueIndex('jobs_dedupe_key_unique').on(table.dedupeKey).where(sql`dedupe_key is not null`),
    // The claim's ordered scan: a lane's queue, then the oldest due job first (see claimJobLanes).
    index('jobs_pending_queue_run_at').on(table.queue, table.runAt).where(sql`status = 'pending'`),
    index('jobs_running_locked_until').on(table.lockedUntil).where(sql`status = 'running'`),
    index('jobs_finished_at').on(table.finishedAt).where(sql`status in ('succeeded', 'dead')`),
  ],
);

/** Idempotency-Key records (docs/API.md §5), per merchant + mode + key, kept 24 hours. */
export const idempotencyKeys = pgTable(
  'idempotency_keys',
  {
    merchantId: text('merchant_id').notNull(),
    livemode: boolean('livemode').notNull(),
    key: text('key').notNull(),
    requestHash: text('request_hash').notNull(),
    state: text('state', { enum: ['in_progress', 'committed', 'completed'] }).notNull(),
    responseStatus: integer('response_status'),
    responseBody: text('response_body'),
    responseContentType: text('response_content_type'),
    lockedUntil: timestamptz('locked_until').notNull(),
    createdAt: timestamptz('created_at').notNull(),
  },
  (table) => [primaryKey({ columns: [table.merchantId, table.livemode, table.key] }), index('idempotency_keys_created_at').on(table.createdAt)],
);

/**
 * Business events. Written in the same transaction as the state change they report (an event
 * exists if and only if its change committed); delivery to webhooks fans out from here.
 */
export const events = pgTable(
  'events',
  {
    id: text('id').primaryKey(),
    merchantId: text('merchant_id').notNull(),
    livemode: boolean('livemode').notNull(),
    type: text('type').notNull(),
    data: jsonb('data').notNull(),
    createdAt: timestamptz('created_at').notNull(),
  },
  (table) => [
    index('events_merchant_created').on(table.merchantId, table.livemode, table.createdAt, table.id),
    index('events_merchant_type_created').on(table.merchantId, table.type, table.createdAt, table.id),
  ],
);

/**
 * State kept by the sandbox providers (KYC, payout rail, card processor). They simulate outside
 * systems, so they keep their own records here, keyed by provider and the provider's reference.
 */
export const sandboxProviderRecords = pgTable(
  'sandbox_provider_records',
  {
    provider: text('provider').notNull(),
    reference: text('reference').notNull(),
    data: jsonb('data').notNull(),
    readyAt: timestamptz('ready_at').notNull(),
    createdAt: timestamptz('created_at').notNull(),
  },
  (table) => [primaryKey({ columns: [table.provider, table.reference] })],
);

/**
 * E-mails: written in the caller's transaction and sent by the `email.send` job (SMTP when
 * SMTP_URL is set). Without SMTP they stay here as the sandbox inbox. Bodies may carry the
 * customer's own name (and verification codes) but no other PII; recipient, subject, text and html
 * are all sealed with the key ring (`src/modules/email/sealing.ts`; rows of older versions may hold
 * plaintext subject and bodies, read as they are until `crypto reencrypt`).
 */
export const emails = pgTable(
  'emails',
  {
    id: text('id').primaryKey(),
    merchantId: text('merchant_id').notNull(),
    livemode: boolean('livemode').notNull(),
    /** Sealed with the key ring (the address is PII). */
    toCiphertext: text('to_ciphertext').notNull(),
    template: text('template').notNull(),
    subject: text('subject').notNull(),
    text: text('text').notNull(),
    html: text('html').notNull(),
    /** What the e-mail is about (a payout page id, …), for the inbox and tests. */
    relatedId: text('related_id'),
    status: text('status', { enum: ['queued', 'sent', 'stored', 'failed'] }).notNull(),
    attempts: integer('attempts').notNull().default(0),
    lastError: text('last_error'),
    createdAt: timestamptz('created_at').notNull(),
    sentAt: timestamptz('sent_at'),
    /**
     * Set when retention emptied the recipient, subject and bodies (RETENTION_EMAIL_BODIES_DAYS after
     * `created_at`); the row stays as the record that the e-mail was sent.
     */
    contentPurgedAt: timestamptz('content_purged_at'),
  },
  (table) => [
    index('emails_merchant_created').on(table.merchantId, table.livemode, table.createdAt, table.id),
    index('emails_related').on(table.relatedId),
    index('emails_content_retention').on(table.createdAt).where(sql`content_purged_at is null`),
  ],
);
