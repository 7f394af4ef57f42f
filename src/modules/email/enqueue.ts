import type { Executor } from '../../db/client.ts';
import { emails } from '../../db/schema/index.ts';
import { newId } from '../../crypto/ids.ts';
import type { KeyRing } from '../../crypto/keyring.ts';
import { enqueueJob } from '../../jobs/queue.ts';
import { emailFieldAssociatedData, sealEmailContent } from './sealing.ts';

export const emailSendQueue = 'email.send';
/** Attempts of the `email.send` job before the e-mail is marked `failed`. */
export const emailMaxAttempts = 8;

export interface OutgoingEmail {
  merchantId: string;
  livemode: boolean;
  to: string;
  /** A short template name (`payout_page_created`, `verification_code`, …). */
  template: string;
  subject: string;
  text: string;
  html: string;
  relatedId?: string;
}

export function emailAddressAssociatedData(merchantId: string, emailId: string): string {
  return emailFieldAssociatedData(merchantId, emailId, 'to');
}

/**
 * Queues an e-mail inside the caller's transaction; the `email.send` job delivers it (with retries)
 * after commit. The recipient, the subject and both bodies are stored sealed (`sealing.ts`): an
 * e-mail may greet the customer by first name or carry a verification code.
 */
export async function enqueueEmail(tx: Executor, now: Date, keyRing: KeyRing, email: OutgoingEmail): Promise<string> {
  const id = newId('email', now.getTime());
  await tx.insert(emails).values({
    id,
    merchantId: email.merchantId,
    livemode: email.livemode,
    ...sealEmailContent(keyRing, email.merchantId, id, { to: email.to, subject: email.subject, text: email.text, html: email.html }),
    template: email.template,
    relatedId: email.relatedId ?? null,
    status: 'queued',
    createdAt: now,
  });
  await enqueueJob(tx, now, emailSendQueue, { emailId: id }, { dedupeKey: `${emailSendQueue}:${id}`, maxAttempts: emailMaxAttempts });
  return id;
}
