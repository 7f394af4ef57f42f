import { Type } from 'typebox';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { Api } from '../../../http/types.ts';
import { AppError, notFound } from '../../../http/errors.ts';
import { formActionOrigins, type WebTools } from '../../scope.ts';
import type { PaymentPageResponse, PaymentPagesService } from '../../../modules/payment-pages/index.ts';
import type { MerchantsService } from '../../../modules/merchants/index.ts';
import type { Clock } from '../../../clock.ts';
import { CheckoutPage, ExpiredPage, InProgressPage, PaidPage, declineMessage, type CheckoutField, type CheckoutFormState } from './views.tsx';
import { StripeCheckoutPage, stripeSources, type StripeCheckoutSettings } from './stripe-checkout.tsx';
import { cardProblems, type CardProblem } from '../../../modules/payments/index.ts';
import { checkoutMessages } from './checkout-messages.ts';

const PageParams = Type.Object({ pageId: Type.String({ maxLength: 100 }) }, { additionalProperties: false });

const fieldOfApiError: Record<CardProblem['field'], CheckoutField> = {
  cardNumber: 'cardNumber',
  expMonth: 'expiry',
  expYear: 'expiry',
  cvc: 'cvc',
  cardholderName: 'cardholderName',
};

/** What the customer reads for each problem the card check finds (the API's wording is for developers). */
const problemMessages: Record<CardProblem['field'], Partial<Record<CardProblem['rule'], string>>> = {
  cardNumber: { invalid: checkoutMessages.cardNumberInvalid },
  expMonth: { month: checkoutMessages.expiryMonth },
  expYear: { year: checkoutMessages.expiryYear, expired: checkoutMessages.expiryPast },
  cvc: { invalid: checkoutMessages.cvcInvalid },
  cardholderName: { invalid: checkoutMessages.nameInvalid },
};

const missingMessages: Record<CheckoutField, string> = {
  cardNumber: checkoutMessages.cardNumberMissing,
  expiry: checkoutMessages.expiryMissing,
  cvc: checkoutMessages.cvcMissing,
  cardholderName: checkoutMessages.nameMissing,
};

function messageOf(problem: CardProblem): string {
  return problemMessages[problem.field][problem.rule] ?? missingMessages[fieldOfApiError[problem.field] ?? 'cardNumber'];
}

/**
 * Every problem of the submitted form at once, in form order, as the customer reads them: a missing
 * field, an unreadable expiry date, then the card checks of the payments module on what was typed.
 */
export function checkoutErrors(body: { cardNumber: string; expiry: string; cvc: string; cardholderName: string }, now: Date): CheckoutFormState['errors'] {
  const errors: CheckoutFormState['errors'] = {};
  const expiry = parseExpiry(body.expiry);
  const typed = { cardNumber: body.cardNumber, expMonth: expiry?.expMonth ?? 1, expYear: expiry?.expYear ?? now.getUTCFullYear() + 1, cvc: body.cvc, cardholderName: body.cardholderName };
  for (const problem of cardProblems(typed, now)) {
    const formField = fieldOfApiError[problem.field] ?? 'cardNumber';
    errors[formField] ??= messageOf(problem);
  }
  if (body.expiry.trim() !== '' && !expiry) {
    errors.expiry = checkoutMessages.expiryUnreadable;
  }
  for (const formField of ['cardNumber', 'expiry', 'cvc', 'cardholderName'] as const) {
    if (body[formField].trim() === '') {
      errors[formField] = missingMessages[formField];
    }
  }
  // In form order, so the summary reads top to bottom.
  return Object.fromEntries((['cardNumber', 'expiry', 'cvc', 'cardholderName'] as const).flatMap((formField) => (errors[formField] ? [[formField, errors[formField]]] : [])));
}

function csrfScope(pageId: string): string {
  return `payment-page:${pageId}`;
}

/** "MM/YY", "MM / YYYY", "MMYY" → month and four-digit year (the month is checked with the card); null when unreadable. */
export function parseExpiry(raw: string): { expMonth: number; expYear: number } | null {
  const match = /^\s*(\d{1,2})\s*[/-]?\s*(\d{2}|\d{4})\s*$/.exec(raw);
  if (!match) {
    return null;
  }
  const expMonth = Number(match[1]);
  const year = Number(match[2]);
  const expYear = (match[2] ?? '').length === 2 ? 2000 + year : year;
  return { expMonth, expYear };
}

function field(body: Record<string, unknown>, name: string): string {
  const value = body[name];
  return typeof value === 'string' ? value : '';
}

/**
 * The hosted checkout `/payment-page/<id>`: a server-rendered card form that works without
 * JavaScript (a nonce'd script only shows the card scheme while typing), CSRF-protected, posting to
 * itself; the same `payPage` as the sandbox test helper. The card number and CVC go to the service
 * and the processor adapter only: they are never re-rendered, stored or logged.
 */
export function registerPaymentPageWebRoutes(
  web: Api,
  tools: WebTools,
  deps: {
    paymentPages: PaymentPagesService;
    merchants: MerchantsService;
    clock: Clock;
    /** The Payment Element's settings per mode: the live account's, and the test account's when one backs sandbox mode. */
    stripe: { live: StripeCheckoutSettings | null; test: StripeCheckoutSettings | null };
  },
): void {
  const { paymentPages, merchants, clock, stripe } = deps;

  async function load(pageId: string) {
    const checkout = await paymentPages.checkoutPage(pageId);
    if (!checkout) {
      throw notFound('payment page', pageId);
    }
    const merchant = await merchants.getMerchant(checkout.merchantId);
    return { ...checkout, merchantName: merchant.name };
  }

  type Loaded = Awaited<ReturnType<typeof load>>;

  function formActions(page: PaymentPageResponse): string[] {
    return formActionOrigins(page.successReturnUrl, page.failureReturnUrl);
  }

  async function renderState(request: FastifyRequest, reply: FastifyReply, loaded: Loaded, state: CheckoutFormState, status = 200): Promise<FastifyReply> {
    const { page, merchantName } = loaded;
    const options = { status, formActions: formActions(page) };
    if (page.status === 'PAID') {
      return tools.render(reply, (nonce) => PaidPage({ nonce, page, merchantName }), options);
    }
    if (page.status === 'EXPIRED' || page.expiresAt <= clock.now().getTime()) {
      return tools.render(reply, (nonce) => ExpiredPage({ nonce, page, merchantName }), options);
    }
    if (loaded.attemptInProgress) {
      return tools.render(reply, (nonce) => InProgressPage({ nonce, page, merchantName }), options);
    }
    const settings = page.livemode ? stripe.live : stripe.test;
    if (loaded.cardEntry === 'PROCESSOR_FIELDS' && loaded.cardPaymentsAvailable && settings) {
      return renderProcessorFields(reply, loaded, settings, state.problem, status);
    }
    const csrfToken = tools.csrf.issue(request, reply, csrfScope(page.id));
    return tools.render(reply, (nonce) => CheckoutPage({ nonce, page, merchantName, csrfToken, state, cardPaymentsAvailable: loaded.cardPaymentsAvailable && loaded.cardEntry === 'CARD_FORM', now: clock.now() }), options);
  }

  /**
   * The live checkout: the page's open Stripe session (a new one when none is held) in the
   * Payment Element. A session found settled meanwhile shows the page as it now is.
   */
  async function renderProcessorFields(reply: FastifyReply, loaded: Loaded, settings: StripeCheckoutSettings, problem: string | undefined, status: number): Promise<FastifyReply> {
    let session: Awaited<ReturnType<PaymentPagesService['openCheckoutSession']>>;
    try {
      session = await paymentPages.openCheckoutSession(loaded.page.id);
    } catch (error) {
      if (error instanceof AppError && error.code === 'INVALID_STATE') {
        const current = await load(loaded.page.id);
        if (current.page.status !== 'CREATED' || current.page.expiresAt <= clock.now().getTime()) {
          return renderState(reply.request, reply, current, { errors: {}, values: {} });
        }
      }
      throw error;
    }
    if (!session.clientSecret) {
      throw new Error(`payment ${session.paymentId} has no client secret for the processor's fields`);
    }
    const clientSecret = session.clientSecret;
    const options = { status, formActions: formActions(session.page), sources: stripeSources(settings.jsUrl) };
    return tools.render(reply, (nonce) => StripeCheckoutPage({ nonce, page: session.page, merchantName: loaded.merchantName, settings, clientSecret, problem }), options);
  }

  web.get('/payment-page/:pageId', { schema: { hide: true, params: PageParams } }, async (request, reply) => {
    const loaded = await load(request.params.pageId);
    return renderState(request, reply, loaded, { errors: {}, values: {} });
  });

  /**
   * Stripe's return URL (after the Payment Element confirmed, 3-D Secure included): the payment is
   * settled from the PaymentIntent retrieved by the id we stored — the query parameters
   * (`payment_intent`, `redirect_status`, …) are never trusted. Paid → the merchant's success URL
   * (or the receipt); still open after a failed try → the checkout again, saying why.
   */
  web.get('/payment-page/:pageId/complete', { schema: { hide: true, params: PageParams } }, async (request, reply) => {
    const { pageId } = request.params;
    const returned = await paymentPages.returnFromCheckout(pageId);
    if (returned.page.status === 'PAID' && returned.page.successReturnUrl) {
      return reply.code(303).header('Cache-Control', 'no-store').redirect(returned.page.successReturnUrl, 303);
    }
    if (returned.page.status !== 'CREATED' || !returned.declineReason) {
      return reply.code(303).header('Cache-Control', 'no-store').redirect(`/payment-page/${pageId}`, 303);
    }
    const loaded = await load(pageId);
    return renderState(request, reply, loaded, { errors: {}, values: {}, problem: declineMessage(returned.declineReason) }, 402);
  });

  web.post('/payment-page/:pageId', { schema: { hide: true, params: PageParams } }, async (request, reply) => {
    const { pageId } = request.params;
    const body = (request.body ?? {}) as Record<string, unknown>;
    if (!tools.csrf.verify(request, csrfScope(pageId), body._csrf)) {
      throw new AppError('FORBIDDEN', 'This form has expired or did not come from the payment page. Go back, reload the page and try again.');
    }
    const loaded = await load(pageId);
    const values = { expiry: field(body, 'expiry').slice(0, 9), cardholderName: field(body, 'cardholderName').slice(0, 200) };
    const typed = { ...values, cardNumber: field(body, 'cardNumber').slice(0, 40), cvc: field(body, 'cvc').slice(0, 8) };
    const errors = checkoutErrors(typed, clock.now());
    const expiry = parseExpiry(values.expiry);
    if (Object.keys(errors).length > 0 || !expiry) {
      return renderState(request, reply, loaded, { errors, values }, 400);
    }
    try {
      const outcome = await paymentPages.payPage({ pageId }, { cardNumber: typed.cardNumber, cvc: typed.cvc, cardholderName: values.cardholderName, ...expiry });
      if (outcome.outcome === 'DECLINED') {
        return renderState(request, reply, { ...loaded, page: outcome.page }, { errors: {}, problem: declineMessage(outcome.declineReason), values }, 402);
      }
      if (outcome.page.successReturnUrl) {
        return reply.code(303).header('Cache-Control', 'no-store').redirect(outcome.page.successReturnUrl, 303);
      }
      return reply.code(303).redirect(`/payment-page/${pageId}`, 303);
    } catch (error) {
      if (error instanceof AppError && error.code === 'WRONG_PARAMETER') {
        const apiField = typeof error.extra.field === 'string' ? error.extra.field : '';
        // The checks above run the same rules first, so this is only a card that changed meaning
        // between the two (a month that ended meanwhile).
        const formField = (fieldOfApiError as Record<string, CheckoutField | undefined>)[apiField] ?? 'cardNumber';
        return renderState(request, reply, loaded, { errors: { [formField]: 'Check this and try again.' }, values }, 400);
      }
      if (error instanceof AppError && error.code === 'INVALID_STATE') {
        return reply.code(303).redirect(`/payment-page/${pageId}`, 303);
      }
      throw error;
    }
  });
}
