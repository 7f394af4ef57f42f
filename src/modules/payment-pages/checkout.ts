import type { Database } from '../../db/client.ts';
import { newId } from '../../crypto/ids.ts';
import { AppError } from '../../http/errors.ts';
import type { Clock } from '../../clock.ts';
import { liveProcessorMissingMessage } from '../card-processor/index.ts';
import type { PaymentsService, ValidatedCard } from '../payments/index.ts';
import type { PageView, PaymentPageRow } from './view.ts';
import type { PaymentPageResponse } from './schemas.ts';

/** What the hosted checkout shows for a page. */
export interface CheckoutPage {
  page: PaymentPageResponse;
  merchantId: string;
  /** False for live mode when no live processor is configured. */
  cardPaymentsAvailable: boolean;
  /** 'CARD_FORM': the sandbox's own card form; 'PROCESSOR_FIELDS': the processor's fields in the browser (Stripe's Payment Element), never a card number here. */
  cardEntry: 'CARD_FORM' | 'PROCESSOR_FIELDS';
  /** A card-form attempt is being charged (the page shows "in progress"). */
  attemptInProgress: boolean;
}

/** An open processor session for the page, as the browser confirms it. */
export interface CheckoutSession {
  paymentId: string;
  clientSecret: string | null;
  page: PaymentPageResponse;
  /** The decline of the customer's last try on this session (another card may be tried), or null. */
  declineReason: string | null;
}

/**
 * Processor-hosted card entry (live mode; any processor without a Paysail card form). The page is
 * claimed for one session as `payPage` claims it for a card; the session stays open while the
 * page lives (the customer may try another card after a decline, or finish 3-D Secure), is
 * settled from the processor's record (the return URL, its webhook, the resolve job), and is
 * closed at the processor when the page expires. No card data passes here.
 */
export function createCheckoutSessions(deps: {
  database: Database;
  clock: Clock;
  payments: PaymentsService;
  requireView: (target: { pageId: string }) => Promise<PageView>;
  loadView: (target: { pageId: string }) => Promise<PageView | null>;
  claim: (pageId: string, paymentId: string, now: Date, card: ValidatedCard | null) => Promise<PaymentPageRow>;
  notPayable: (page: PaymentPageRow, now: Date) => AppError | null;
  toResponse: (view: PageView) => PaymentPageResponse;
}) {
  const { database, clock, payments, requireView, loadView, claim, notPayable, toResponse } = deps;

  /** Settles the page's held session from the processor's record when it is final. */
  async function settleHeld(page: PaymentPageRow): Promise<string | null> {
    if (!page.attemptPaymentId) {
      return null;
    }
    return (await payments.reconcileSession(page.attemptPaymentId)).declineReason;
  }

  return {
    /**
     * The page's open session, or a new one (a new claim) when none is held: a reload gets the
     * same session back (the processor's create is idempotent on our payment id, then read back
     * by its id). A held session is first settled if final: a page paid meanwhile answers 409.
     */
    async openCheckoutSession(pageId: string): Promise<CheckoutSession> {
      let { page } = await requireView({ pageId });
      if (!payments.isAvailable(page.livemode)) {
        throw new AppError('FORBIDDEN', liveProcessorMissingMessage);
      }
      if (payments.acceptsCardNumbers(page.livemode)) {
        throw new AppError('INVALID_STATE', `Payment page ${pageId} is paid with the card form in this mode`);
      }
      let declineReason = await settleHeld(page);
      ({ page } = await requireView({ pageId }));
      const now = clock.now();
      let paymentId = page.attemptPaymentId;
      const attempt = paymentId ? await payments.find(database.db, paymentId) : null;
      if (!paymentId || !attempt || attempt.status !== 'PROCESSING') {
        const refusal = notPayable(page, now);
        if (refusal) {
          throw refusal;
        }
        paymentId = newId('payment', now.getTime());
        await claim(page.id, paymentId, now, null);
        declineReason = null;
      }
      const session = await payments.openSession(paymentId);
      return { paymentId, clientSecret: session.clientSecret, page: toResponse(await requireView({ pageId })), declineReason };
    },

    /**
     * The customer is back from the processor (its return URL): settles the page's session from
     * the processor's record (never from the URL's parameters). Answers the page as it now stands
     * and, when the session is still open after a failed try, its decline.
     */
    async returnFromCheckout(pageId: string): Promise<{ page: PaymentPageResponse; declineReason: string | null }> {
      const { page } = await requireView({ pageId });
      const declineReason = await settleHeld(page);
      return { page: toResponse(await requireView({ pageId })), declineReason };
    },

    /** `returnFromCheckout`, answering only the page. */
    async completeCheckout(pageId: string): Promise<PaymentPageResponse> {
      const { page } = await requireView({ pageId });
      await settleHeld(page);
      return toResponse(await requireView({ pageId }));
    },

    /** The page for the hosted checkout (no merchant scope: the id in the URL is the capability). */
    async checkoutPage(pageId: string): Promise<CheckoutPage | null> {
      const view = await loadView({ pageId });
      if (!view) {
        return null;
      }
      const cardForm = payments.acceptsCardNumbers(view.page.livemode);
      return {
        page: toResponse(view),
        merchantId: view.page.merchantId,
        cardPaymentsAvailable: payments.isAvailable(view.page.livemode),
        cardEntry: cardForm ? 'CARD_FORM' : 'PROCESSOR_FIELDS',
        attemptInProgress: cardForm && view.page.attemptPaymentId !== null,
      };
    },
  };
}
