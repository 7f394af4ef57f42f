import type { Executor } from '../../db/client.ts';
import { emails } from '../../db/schema/index.ts';
import { newId } from '../../crypto/ids.ts';
import type { KeyRing } from '../../crypto/keyring.ts';
import { enqueueJob } from '../../jobs/queue.ts';

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
  return `emails|${merchantId}|${emailId}|to`;
}

/**
 * Queues an e-mail inside the caller's transaction; the `email.send` job delivers it (with retries)
 * after commit. The recipient address is stored sealed.
 */
export async function enqueueEmail(tx: Executor, now: Date, keyRing: KeyRing, email: OutgoingEmail): Promise<string> {
  const id = newId('email', now.getTime());
  await tx.insert(emails).values({
    id,
    merchantId: email.merchantId,
    livemode: email.livemode,
    toCiphertext: keyRing.encrypt(email.to, emailAddressAssociatedData(email.merchantId, id)),
    template: email.template,
    subject: email.subject,
    text: email.text,
    html: email.html,
    relatedId: email.relatedId ?? null,
    status: 'queued',
    createdAt: now,
  });
  await enqueueJob(tx, now, emailSendQueue, { emailId: id }, { dedupeKey: `${emailSendQueue}:${id}`, maxAttempts: emailMaxAttempts });
  return id;
}
