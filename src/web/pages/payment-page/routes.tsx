import { Type } from 'typebox';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { Api } from '../../../http/types.ts';
import { AppError, notFound } from '../../../http/errors.ts';
import { formActionOrigins, type WebTools } from '../../scope.ts';
import type { PaymentPagesService } from '../../../modules/payment-pages/service.ts';
import type { PaymentPageResponse } from '../../../modules/payment-pages/schemas.ts';
import type { MerchantsService } from '../../../modules/merchants/service.ts';
import type { Clock } from '../../../jobs/worker.ts';
import { CheckoutPage, ExpiredPage, InProgressPage, PaidPage, declineMessage, type CheckoutField, type CheckoutFormState } from './views.tsx';

const PageParams = Type.Object({ pageId: Type.String({ maxLength: 100 }) }, { additionalProperties: false });

const fieldOfApiError: Record<string, CheckoutField> = {
  cardNumber: 'cardNumber',
  expMonth: 'expiry',
  expYear: 'expiry',
  cvc: 'cvc',
  cardholderName: 'cardholderName',
};

const fieldMessages: Record<CheckoutField, string> = {
  cardNumber: 'Enter a valid card number.',
  expiry: 'Enter the expiry date as MM / YY; it must not be in the past.',
  cvc: 'Enter the 3- or 4-digit security code.',
  cardholderName: 'Enter the name as it appears on the card.',
};

function csrfScope(pageId: string): string {
  return `payment-page:${pageId}`;
}

/** "MM/YY", "MM / YYYY", "MMYY" → month and four-digit year; null when unreadable. */
export function parseExpiry(raw: string): { expMonth: number; expYear: number } | null {
  const match = /^\s*(\d{1,2})\s*[/-]?\s*(\d{2}|\d{4})\s*$/.exec(raw);
  if (!match) {
    return null;
  }
  const expMonth = Number(match[1]);
  const year = Number(match[2]);
  const expYear = (match[2] ?? '').length === 2 ? 2000 + year : year;
  return expMonth >= 1 && expMonth <= 12 ? { expMonth, expYear } : null;
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
export function registerPaymentPageWebRoutes(web: Api, tools: WebTools, deps: { paymentPages: PaymentPagesService; merchants: MerchantsService; clock: Clock }): void {
  const { paymentPages, merchants, clock } = deps;

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
    const csrfToken = tools.csrf.issue(request, reply, csrfScope(page.id));
    return tools.render(reply, (nonce) => CheckoutPage({ nonce, page, merchantName, csrfToken, state, cardPaymentsAvailable: loaded.cardPaymentsAvailable }), options);
  }

  web.get('/payment-page/:pageId', { schema: { hide: true, params: PageParams } }, async (request, reply) => {
    const loaded = await load(request.params.pageId);
    return renderState(request, reply, loaded, { errors: {}, values: {} });
  });

  web.post('/payment-page/:pageId', { schema: { hide: true, params: PageParams } }, async (request, reply) => {
    const { pageId } = request.params;
    const body = (request.body ?? {}) as Record<string, unknown>;
    if (!tools.csrf.verify(request, csrfScope(pageId), body._csrf)) {
      throw new AppError('FORBIDDEN', 'This form has expired or did not come from the payment page. Go back, reload the page and try again.');
    }
    const loaded = await load(pageId);
    const values = { expiry: field(body, 'expiry').slice(0, 9), cardholderName: field(body, 'cardholderName').slice(0, 200) };
    const expiry = parseExpiry(values.expiry);
    if (!expiry) {
      return renderState(request, reply, loaded, { errors: { expiry: fieldMessages.expiry }, values }, 400);
    }
    try {
      const outcome = await paymentPages.payPage(
        { pageId },
        { cardNumber: field(body, 'cardNumber').slice(0, 40), cvc: field(body, 'cvc').slice(0, 8), cardholderName: values.cardholderName, ...expiry },
      );
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
        const formField = fieldOfApiError[apiField] ?? 'cardNumber';
        return renderState(request, reply, loaded, { errors: { [formField]: fieldMessages[formField] }, values }, 400);
      }
      if (error instanceof AppError && error.code === 'INVALID_STATE') {
        return reply.code(303).redirect(`/payment-page/${pageId}`, 303);
      }
      throw error;
    }
  });
}
