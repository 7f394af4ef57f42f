import { and, desc, eq, notInArray, type SQL } from 'drizzle-orm';
import type { Database } from '../../../db/client.ts';
import { emails } from '../../../db/schema/index.ts';
import type { KeyRing } from '../../../crypto/keyring.ts';
import { openEmailContentOrPlaceholder, openEmailField, unreadableEmailField, type SealedEmailField } from '../../email/index.ts';
import { createdWithin, everyRow, readPage, type CreatedRange, type PageOf } from './pagination.ts';

export interface InboxRowView {
  id: string;
  to: string;
  subject: string;
  template: string;
  status: string;
  relatedId: string | null;
  /** The 6-digit verification code of a payout page, when this e-mail carries one. */
  verificationCode: string | null;
  createdAt: Date;
}

export interface InboxMessageView extends InboxRowView {
  text: string;
  html: string;
  sentAt: Date | null;
  lastError: string | null;
}

/**
 * The 6-digit code of a verification e-mail ("Your code is 123456."); the first 6-digit number of
 * its text when the wording differs. Other e-mails carry no code.
 */
export function verificationCodeOf(template: string, text: string): string | null {
  if (!/code|verif/i.test(template)) {
    return null;
  }
  return /\bcode(?: is)?:?\s*(\d{6})\b/i.exec(text)?.[1] ?? /\b(\d{6})\b/.exec(text)?.[1] ?? null;
}

/** Read model of the sandbox inbox: the e-mails the platform wrote for this merchant and mode. */
export function createInboxPresenter(deps: { database: Database; keyRing: KeyRing }) {
  const { database, keyRing } = deps;

  /** Recipient, subject and bodies are sealed at rest (`email/sealing.ts`); a field that does not open reads `(unreadable)`. */
  function field(merchantId: string, id: string, name: SealedEmailField, stored: string): string {
    try {
      return openEmailField(keyRing, merchantId, id, name, stored);
    } catch {
      return unreadableEmailField;
    }
  }

  /** `hiddenTemplates`: e-mails this reader may not see (team invitations carry a sign-up link: managers only). */
  /** `withCodes`: open each body for its verification code (the screen shows it; the CSV does not, so it opens no body). */
  async function rows(merchantId: string, livemode: boolean, hiddenTemplates: readonly string[], period: CreatedRange, withCodes: boolean, after: SQL[], limit: number, offset: number): Promise<InboxRowView[]> {
    const found = await database.db
      .select({
        id: emails.id,
        toCiphertext: emails.toCiphertext,
        subject: emails.subject,
        template: emails.template,
        status: emails.status,
        relatedId: emails.relatedId,
        text: emails.text,
        createdAt: emails.createdAt,
      })
      .from(emails)
      .where(
        and(
          eq(emails.merchantId, merchantId),
          eq(emails.livemode, livemode),
          hiddenTemplates.length > 0 ? notInArray(emails.template, [...hiddenTemplates]) : undefined,
          ...createdWithin(emails.createdAt, period),
          ...after,
        ),
      )
      .orderBy(desc(emails.createdAt), desc(emails.id))
      .limit(limit)
      .offset(offset);
    return found.map(({ toCiphertext, subject, text, ...row }) => ({
      ...row,
      to: field(merchantId, row.id, 'to', toCiphertext),
      subject: field(merchantId, row.id, 'subject', subject),
      verificationCode: withCodes ? verificationCodeOf(row.template, field(merchantId, row.id, 'text', text)) : null,
    }));
  }

  return {
    list(merchantId: string, livemode: boolean, page: number, hiddenTemplates: readonly string[] = [], period: CreatedRange = {}): Promise<PageOf<InboxRowView>> {
      return readPage(page, (limit, offset) => rows(merchantId, livemode, hiddenTemplates, period, true, [], limit, offset));
    },

    /** Every e-mail the period selects that this reader may see, newest first (the CSV export). */
    exportRows(merchantId: string, livemode: boolean, hiddenTemplates: readonly string[], period: CreatedRange): AsyncGenerator<InboxRowView> {
      return everyRow({ createdAt: emails.createdAt, id: emails.id }, (after, limit) => rows(merchantId, livemode, hiddenTemplates, period, false, after, limit, 0));
    },

    async message(merchantId: string, livemode: boolean, emailId: string, hiddenTemplates: readonly string[] = []): Promise<InboxMessageView | null> {
      const [row] = await database.db
        .select()
        .from(emails)
        .where(and(eq(emails.id, emailId), eq(emails.merchantId, merchantId), eq(emails.livemode, livemode)));
      if (!row || hiddenTemplates.includes(row.template)) {
        return null;
      }
      const content = openEmailContentOrPlaceholder(keyRing, merchantId, row.id, row);
      return {
        id: row.id,
        to: content.to,
        subject: content.subject,
        template: row.template,
        status: row.status,
        relatedId: row.relatedId,
        verificationCode: verificationCodeOf(row.template, content.text),
        createdAt: row.createdAt,
        text: content.text,
        html: content.html,
        sentAt: row.sentAt,
        lastError: row.lastError,
      };
    },
  };
}

export type InboxPresenter = ReturnType<typeof createInboxPresenter>;
