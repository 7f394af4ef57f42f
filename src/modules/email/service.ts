import { and, asc, count, desc, eq, gt, isNull, type SQL } from 'drizzle-orm';
import { createRequire } from 'node:module';
import type * as Nodemailer from 'nodemailer';
import type { Transporter } from 'nodemailer';
import type { Logger } from 'pino';
import type { Database } from '../../db/client.ts';
import { emails } from '../../db/schema/index.ts';
import type { KeyRing } from '../../crypto/keyring.ts';
import type { JobDefinition } from '../../jobs/worker.ts';
import type { Clock } from '../../clock.ts';
import { emailMaxAttempts, emailSendQueue } from './enqueue.ts';
import { resealInBatches, type ReencryptOptions } from '../../crypto/rotation.ts';
import { openEmailContent, openEmailContentOrPlaceholder, resealEmailContent, type EmailContent, type StoredEmailContent } from './sealing.ts';

export type EmailStatus = (typeof emails.$inferSelect)['status'];

export interface EmailView {
  id: string;
  merchantId: string;
  livemode: boolean;
  to: string;
  subject: string;
  text: string;
  html: string;
  template: string;
  relatedId: string | null;
  status: EmailStatus;
  attempts: number;
  lastError: string | null;
  createdAt: number;
  sentAt: number | null;
}

/** The domain of the sender address, for stable Message-IDs. */
function senderDomain(mailFrom: string): string {
  const match = /@([^>\s]+)>?\s*$/.exec(mailFrom);
  return match?.[1] ?? 'paysail.localhost';
}

/**
 * Delivers queued e-mails (the `email.send` job) and lists them for operators.
 *
 * With SMTP_URL: sent through one pooled nodemailer transport per platform, with a text and an HTML
 * part; a failure throws so the job retries with backoff, and after the last attempt the e-mail is
 * `failed`. Without SMTP_URL the e-mail is `stored`: it stays in the table, which the dashboard
 * shows as the sandbox inbox. Sending is at least once (a crash between the SMTP answer and the
 * status update sends again); the Message-ID is stable so mail clients can fold duplicates.
 */
export function createEmailService(deps: { database: Database; clock: Clock; keyRing: KeyRing; smtpUrl: string | undefined; mailFrom: string; logger: Logger }) {
  const { database, clock, keyRing, smtpUrl, mailFrom, logger } = deps;
  let transport: Transporter | undefined;
  const domain = senderDomain(mailFrom);

  function transporter(url: string): Transporter {
    if (!transport) {
      // Loaded with the first e-mail sent over SMTP, not at start (most starts send none).
      const { createTransport } = createRequire(import.meta.url)('nodemailer') as typeof Nodemailer;
      transport = createTransport({ pool: true, url, maxConnections: 5, connectionTimeout: 10_000, greetingTimeout: 10_000, socketTimeout: 30_000 });
    }
    return transport;
  }

  const sendJob: JobDefinition<{ emailId: string }> = {
    queue: emailSendQueue,
    maxAttempts: emailMaxAttempts,
    async handle(payload, context) {
      const [row] = await database.db.select().from(emails).where(eq(emails.id, payload.emailId));
      if (!row || row.status !== 'queued') {
        return;
      }
      const stillQueued = and(eq(emails.id, row.id), eq(emails.status, 'queued'));
      if (!smtpUrl) {
        await context.transaction(async (tx) => {
          await tx.update(emails).set({ status: 'stored', attempts: context.attempt, lastError: null }).where(stillQueued);
        });
        return;
      }
      let content: EmailContent;
      try {
        content = openEmailContent(keyRing, row.merchantId, row.id, row);
      } catch {
        // A sealed field that does not open (its key left the ring, or the value was copied from
        // another row) will not open on a retry either: the e-mail fails now, and nothing is sent.
        const message = 'the sealed recipient or content does not open (key missing from the ring, or the value is not this e-mail\'s)';
        logger.error({ emailId: row.id, template: row.template, attempt: context.attempt }, 'e-mail unreadable, not sent');
        await context.transaction(async (tx) => {
          await tx.update(emails).set({ status: 'failed', attempts: context.attempt, lastError: message }).where(stillQueued);
        });
        return;
      }
      try {
        await transporter(smtpUrl).sendMail({
          from: mailFrom,
          to: content.to,
          subject: content.subject,
          text: content.text,
          html: content.html,
          messageId: `<${row.id}@${domain}>`,
          headers: { 'X-Paysail-Email-Id': row.id, 'X-Paysail-Template': row.template },
        });
      } catch (error) {
        const message = (error instanceof Error ? error.message : String(error)).slice(0, 1000);
        if (context.attempt >= emailMaxAttempts) {
          logger.error({ emailId: row.id, template: row.template, attempt: context.attempt, err: message }, 'e-mail failed for good');
          await context.transaction(async (tx) => {
            await tx.update(emails).set({ status: 'failed', attempts: context.attempt, lastError: message }).where(stillQueued);
          });
          return;
        }
        await database.db.update(emails).set({ attempts: context.attempt, lastError: message }).where(stillQueued);
        throw error;
      }
      await context.transaction(async (tx) => {
        await tx.update(emails).set({ status: 'sent', attempts: context.attempt, lastError: null, sentAt: clock.now() }).where(stillQueued);
      });
    },
  };

  return {
    /** Every job queue of this module, registered by platform.ts in one loop. */
    jobs(): JobDefinition[] {
      return [this.sendJob()];
    },

    sendJob(): JobDefinition<{ emailId: string }> {
      return sendJob;
    },

    /**
     * Newest first; recipient, subject and bodies decrypted (operators and the sandbox inbox only). A
     * field that does not open reads `(unreadable)`, so one damaged e-mail does not hide the others.
     */
    async listEmails(filters: { merchantId?: string; relatedId?: string; limit: number }): Promise<EmailView[]> {
      const conditions: SQL[] = [];
      if (filters.merchantId !== undefined) {
        conditions.push(eq(emails.merchantId, filters.merchantId));
      }
      if (filters.relatedId !== undefined) {
        conditions.push(eq(emails.relatedId, filters.relatedId));
      }
      const rows = await database.db
        .select()
        .from(emails)
        .where(conditions.length > 0 ? and(...conditions) : undefined)
        .orderBy(desc(emails.createdAt), desc(emails.id))
        .limit(filters.limit);
      return rows.map((row) => {
        const { to, subject, text, html } = openEmailContentOrPlaceholder(keyRing, row.merchantId, row.id, row);
        return {
          id: row.id,
          merchantId: row.merchantId,
          livemode: row.livemode,
          to,
          subject,
          text,
          html,
          template: row.template,
          relatedId: row.relatedId,
          status: row.status,
          attempts: row.attempts,
          lastError: row.lastError,
          createdAt: row.createdAt.getTime(),
          sentAt: row.sentAt ? row.sentAt.getTime() : null,
        };
      });
    },

    /**
     * Key-ring rotation: re-seals every e-mail's recipient, subject and bodies under the active key,
     * and seals the plaintext subject and bodies of rows written by older versions. Reads in pages of
     * `batchSize` rows by id. Each update is conditional on the values read: an e-mail changed
     * meanwhile keeps its values and is re-sealed on the next run. An e-mail whose fields do not open
     * (its key already left the ring) cannot be re-sealed: it is skipped with a warning naming its id.
     * Returns the number of e-mails re-sealed (`onProgress`: rows examined of all).
     */
    async reencryptAll(options: ReencryptOptions = {}): Promise<number> {
      return resealInBatches({
        ...options,
        // An e-mail whose content retention purged holds nothing to seal.
        count: async () => (await database.db.select({ total: count() }).from(emails).where(isNull(emails.contentPurgedAt)))[0]?.total ?? 0,
        readBatch: (after: string | undefined, limit) =>
          database.db
            .select({ id: emails.id, merchantId: emails.merchantId, toCiphertext: emails.toCiphertext, subject: emails.subject, text: emails.text, html: emails.html })
            .from(emails)
            .where(and(isNull(emails.contentPurgedAt), after === undefined ? undefined : gt(emails.id, after)))
            .orderBy(asc(emails.id))
            .limit(limit),
        cursorOf: (row) => row.id,
        async reseal(row) {
          let resealed: StoredEmailContent | null;
          try {
            resealed = resealEmailContent(keyRing, row.merchantId, row.id, row);
          } catch {
            logger.warn({ emailId: row.id }, 'e-mail does not open under the key ring; not re-encrypted');
            return false;
          }
          if (!resealed) {
            return false;
          }
          const updated = await database.db
            .update(emails)
            .set(resealed)
            .where(and(eq(emails.id, row.id), eq(emails.toCiphertext, row.toCiphertext), eq(emails.subject, row.subject), eq(emails.text, row.text), eq(emails.html, row.html)))
            .returning({ id: emails.id });
          return updated.length > 0;
        },
      });
    },

    close(): void {
      transport?.close();
      transport = undefined;
    },
  };
}

export type EmailService = ReturnType<typeof createEmailService>;
