import { and, desc, eq, type SQL } from 'drizzle-orm';
import { createTransport, type Transporter } from 'nodemailer';
import type { Logger } from 'pino';
import type { Database } from '../../db/client.ts';
import { emails } from '../../db/schema/index.ts';
import type { KeyRing } from '../../crypto/keyring.ts';
import type { Clock, JobDefinition } from '../../jobs/worker.ts';
import { emailAddressAssociatedData, emailMaxAttempts, emailSendQueue } from './enqueue.ts';

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
      const to = keyRing.decrypt(row.toCiphertext, emailAddressAssociatedData(row.merchantId, row.id));
      try {
        await transporter(smtpUrl).sendMail({
          from: mailFrom,
          to,
          subject: row.subject,
          text: row.text,
          html: row.html,
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
    sendJob(): JobDefinition<{ emailId: string }> {
      return sendJob;
    },

    /** Newest first; recipients decrypted (operators and the sandbox inbox only). */
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
      return rows.map((row) => ({
        id: row.id,
        merchantId: row.merchantId,
        livemode: row.livemode,
        to: keyRing.decrypt(row.toCiphertext, emailAddressAssociatedData(row.merchantId, row.id)),
        subject: row.subject,
        text: row.text,
        html: row.html,
        template: row.template,
        relatedId: row.relatedId,
        status: row.status,
        attempts: row.attempts,
        lastError: row.lastError,
        createdAt: row.createdAt.getTime(),
        sentAt: row.sentAt ? row.sentAt.getTime() : null,
      }));
    },

    close(): void {
      transport?.close();
      transport = undefined;
    },
  };
}

export type EmailService = ReturnType<typeof createEmailService>;
