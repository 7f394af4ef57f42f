import { and, eq, isNotNull, isNull, sql } from 'drizzle-orm';
import type { Executor } from '../../db/client.ts';
import { payoutPageAccessCodes, payoutPageSessions, payoutPages } from '../../db/schema/index.ts';
import { AppError } from '../../http/errors.ts';
import { recordEvent } from '../events/index.ts';
import { enqueueEmail, renderEmail } from '../email/index.ts';
import type { Merchant } from '../merchants/index.ts';
import { pageLockedEmail, pageReissuedEmail } from './emails.ts';
import { stateOf } from './present.ts';
import { payoutPagesRepository as repository, type PayoutPageRow } from './repository.ts';
import type { PayoutPageResponse } from './schemas.ts';
import { isFinal } from './states.ts';
import type { PayoutPagesDeps, PayoutTransitions } from './transitions.ts';

/**
 * Wrong verification codes a hosted page takes in its whole life (over every code and every hour)
 * before it locks. With 6-digit codes an attacker holding the link has at most 10 in 1,000,000.
 */
export const maxWrongCodes = 10;

/**
 * The code lock of a hosted payout page (decision 0026). It is a flag beside the page's state, not a
 * state: a page locks wherever the customer still has something to enter (CREATED, KYC_REQUIRED, a
 * retry after a rejection), and its payout state, reservation and expiry are untouched. Locking and
 * reissuing each commit with their event and e-mails.
 */
export function createPayoutPageLock(deps: PayoutPagesDeps, transitions: PayoutTransitions) {
  const { database, clock, keyRing } = deps;
  const { requireScoped, emailContext, sendEmail, toResponse } = transitions;

  /** The page as the API reads it without the customer's e-mail (PII stays out of events). */
  function lockEventData(page: PayoutPageRow): Record<string, unknown> {
    const { customer, ...rest } = toResponse(page);
    return { ...rest, customer: { id: customer.id, referenceId: customer.referenceId } };
  }

  /** Codes and sessions of the page stop working (a lock, a reissue). */
  async function forgetAccess(tx: Executor, payoutPageId: string): Promise<void> {
    await tx.delete(payoutPageAccessCodes).where(eq(payoutPageAccessCodes.payoutPageId, payoutPageId));
    await tx.delete(payoutPageSessions).where(eq(payoutPageSessions.payoutPageId, payoutPageId));
  }

  async function notifyLocked(tx: Executor, page: PayoutPageRow, now: Date): Promise<void> {
    const merchant = await repository.merchantContact(tx, page.merchantId);
    const context = await emailContext(tx, page, merchant.name);
    await sendEmail(tx, page, pageLockedEmail(context), now);
    const mode = page.livemode ? 'live' : 'sandbox';
    const content = renderEmail({
      subject: `A ${mode} payout page was locked after ${maxWrongCodes} wrong codes`,
      paragraphs: [
        `Your ${mode} payout page ${page.clientReferenceId} (${page.id}) received ${maxWrongCodes} wrong verification codes, so it is locked: no code is sent or accepted, and nothing stored about the customer can be seen on it.`,
        'The customer was told to contact you. If they did, or you know the guesses were theirs, reissue the page in the dashboard or with POST /v1/payout_pages/:id/reissue: that unlocks it, makes every earlier code useless and e-mails the customer. The payout itself is unchanged.',
      ],
      action: { label: 'Open the payout page in the dashboard', url: `${deps.publicUrl}/dashboard/${mode}/payout-pages/${page.id}` },
    });
    await enqueueEmail(tx, now, keyRing, { merchantId: page.merchantId, livemode: page.livemode, to: merchant.email, template: 'payout_page_locked_merchant', relatedId: page.id, ...content });
  }

  return {
    /**
     * A wrong code, in the guess's transaction (the page row is held FOR UPDATE by the caller): the
     * counter is raised by a conditional UPDATE, which also sets `locked_at` when it reaches the cap.
     * True when the page is locked (now or already).
     */
    async countWrongCode(tx: Executor, payoutPageId: string, now: Date): Promise<boolean> {
      const reachesCap = sql`${payoutPages.wrongCodes} + 1 >= ${maxWrongCodes}`;
      const [counted] = await tx
        .update(payoutPages)
        .set({
          wrongCodes: sql`${payoutPages.wrongCodes} + 1`,
          lockedAt: sql`case when ${reachesCap} then ${now.toISOString()}::timestamptz else null end`,
          updatedAt: sql`case when ${reachesCap} then ${now.toISOString()}::timestamptz else ${payoutPages.updatedAt} end`,
        })
        .where(and(eq(payoutPages.id, payoutPageId), isNull(payoutPages.lockedAt)))
        .returning();
      if (!counted) {
        return true;
      }
      if (counted.lockedAt === null) {
        return false;
      }
      await forgetAccess(tx, payoutPageId);
      await recordEvent(tx, now, { merchantId: counted.merchantId, livemode: counted.livemode, type: 'PAYOUT_PAGE_LOCKED', data: lockEventData(counted) });
      await notifyLocked(tx, counted, now);
      return true;
    },

    /**
     * The merchant reopens a locked page: unlocked, the counter back to 0, every earlier code and
     * session gone, PAYOUT_PAGE_REISSUED, and the customer e-mailed the link again.
     */
    async reissuePayoutPage(merchant: Merchant, livemode: boolean | undefined, payoutPageId: string): Promise<PayoutPageResponse> {
      const now = clock.now();
      return database.transaction(async (tx) => {
        const page = await requireScoped(tx, merchant, livemode, payoutPageId);
        if (isFinal(stateOf(page))) {
          throw new AppError('INVALID_STATE', `Cannot reissue payout page ${page.id}: it is ${page.status}/${page.subStatus}, where the customer has nothing left to do`);
        }
        const [reissued] = await tx
          .update(payoutPages)
          .set({ lockedAt: null, wrongCodes: 0, updatedAt: now })
          .where(and(eq(payoutPages.id, page.id), isNotNull(payoutPages.lockedAt)))
          .returning();
        if (!reissued) {
          throw new AppError('INVALID_STATE', `Cannot reissue payout page ${page.id}: it is not locked (a page locks after ${maxWrongCodes} wrong verification codes)`);
        }
        await forgetAccess(tx, reissued.id);
        await recordEvent(tx, now, { merchantId: reissued.merchantId, livemode: reissued.livemode, type: 'PAYOUT_PAGE_REISSUED', data: lockEventData(reissued) });
        await sendEmail(tx, reissued, pageReissuedEmail(await emailContext(tx, reissued, merchant.name)), now);
        return toResponse(reissued);
      });
    },

  };
}

export type PayoutPageLock = ReturnType<typeof createPayoutPageLock>;
