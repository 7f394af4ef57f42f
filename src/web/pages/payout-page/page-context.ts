import type { FastifyReply, FastifyRequest } from 'fastify';
import { AppError, notFound } from '../../../http/errors.ts';
import { isId } from '../../../crypto/ids.ts';
import { formActionOrigins, type WebTools } from '../../scope.ts';
import type { Clock } from '../../../clock.ts';
import { explorerUrl, isRetryable, type PayoutMethodType, type PayoutPageRow, type PayoutPagesService } from '../../../modules/payout-pages/index.ts';
import { DeclinePage, DestinationPage, KycPage, StatusPage, VerifyPage, statusCopy, type DestinationValues, type FieldErrors, type PageSummary, type VerifyNotice } from './views.tsx';

export const sessionCookieName = 'ps_payout_session';
const refreshSeconds = 5;

export interface PayoutPageDeps {
  payoutPages: PayoutPagesService;
  clock: Clock;
  secureCookies: boolean;
}

export function csrfScope(id: string): string {
  return `payout-page:${id}`;
}

/**
 * What every route of the hosted payout page shares: loading the page, the visitor's verified
 * session, CSRF, and rendering each step with its own CSRF token and form-action origins.
 */
export function payoutPageContext(tools: WebTools, deps: PayoutPageDeps) {
  const { payoutPages, clock } = deps;
  const { access } = payoutPages;

  async function load(id: string) {
    const found = isId('payoutPage', id) ? await payoutPages.findForCustomer(id) : null;
    if (!found) {
      throw notFound('payout page', id);
    }
    return found;
  }
  type Loaded = Awaited<ReturnType<typeof load>>;

  function summaryOf(loaded: Loaded): PageSummary {
    const { page } = loaded;
    return { id: page.id, merchantName: loaded.merchantName, amount: page.amount, currency: page.fundingCurrency, livemode: page.livemode, expiresAt: page.expiresAt };
  }

  function renderOptions(page: PayoutPageRow, status = 200) {
    return { status, formActions: formActionOrigins(page.successReturnUrl, page.failureReturnUrl) };
  }

  async function isVerified(request: FastifyRequest, id: string): Promise<boolean> {
    return access.hasSession(id, request.cookies[sessionCookieName]);
  }

  function requireCsrf(request: FastifyRequest, id: string, body: Record<string, unknown>): void {
    if (!tools.csrf.verify(request, csrfScope(id), body._csrf)) {
      throw new AppError('FORBIDDEN', 'This form has expired or did not come from the payout page. Go back, reload the page and try again.');
    }
  }

  /**
   * A form post of a verified customer: the CSRF token checked, then either the post's page id and
   * body, or (no verified session) the URL to send the visitor to so they verify first.
   */
  async function verifiedPost(request: FastifyRequest, id: string): Promise<{ body: Record<string, unknown>; redirect: string | null }> {
    const body = (request.body ?? {}) as Record<string, unknown>;
    requireCsrf(request, id, body);
    const redirect = (await isVerified(request, id)) ? null : `/payout-page/${id}?notice=session_expired`;
    return { body, redirect };
  }

  /** A step that lost a race with another change of the page (INVALID_STATE): back to the page, which shows where it stands. */
  function backOnInvalidState(reply: FastifyReply, id: string, error: unknown): FastifyReply {
    if (error instanceof AppError && error.code === 'INVALID_STATE') {
      return reply.redirect(`/payout-page/${id}`, 303);
    }
    throw error;
  }

  function expiredNow(page: PayoutPageRow): boolean {
    return page.status === 'CREATED' && page.expiresAt.getTime() <= clock.now().getTime();
  }

  async function renderVerify(request: FastifyRequest, reply: FastifyReply, loaded: Loaded, notice: VerifyNotice, status = 200, attemptsLeft?: number): Promise<FastifyReply> {
    const pending = await access.pendingCode(loaded.page.id);
    const csrfToken = tools.csrf.issue(request, reply, csrfScope(loaded.page.id));
    return tools.render(
      reply,
      (nonce) =>
        VerifyPage({
          nonce,
          summary: summaryOf(loaded),
          csrfToken,
          codePending: pending !== null,
          ...(attemptsLeft !== undefined ? { attemptsLeft } : pending ? { attemptsLeft: pending.attemptsLeft } : {}),
          notice,
        }),
      renderOptions(loaded.page, status),
    );
  }

  async function renderDestination(request: FastifyRequest, reply: FastifyReply, loaded: Loaded, method: PayoutMethodType, values: DestinationValues, errors: FieldErrors, status = 200) {
    const csrfToken = tools.csrf.issue(request, reply, csrfScope(loaded.page.id));
    return tools.render(
      reply,
      (nonce) => DestinationPage({ nonce, summary: summaryOf(loaded), csrfToken, method, values, errors, canChangeMethod: loaded.supportedMethods.length > 1 }),
      renderOptions(loaded.page, status),
    );
  }

  async function renderKyc(request: FastifyRequest, reply: FastifyReply, loaded: Loaded, values: Record<string, string>, errors: FieldErrors, status = 200) {
    const prefill = await payoutPages.kycPrefill(loaded.page.id);
    const known = Object.fromEntries(Object.entries(prefill.data).filter((entry): entry is [string, string] => typeof entry[1] === 'string' && entry[1] !== ''));
    const csrfToken = tools.csrf.issue(request, reply, csrfScope(loaded.page.id));
    return tools.render(reply, (nonce) => KycPage({ nonce, summary: summaryOf(loaded), csrfToken, greetingName: prefill.firstName, known, values, errors }), renderOptions(loaded.page, status));
  }

  function renderDecline(request: FastifyRequest, reply: FastifyReply, loaded: Loaded) {
    const csrfToken = tools.csrf.issue(request, reply, csrfScope(loaded.page.id));
    return tools.render(reply, (nonce) => DeclinePage({ nonce, summary: summaryOf(loaded), csrfToken }), renderOptions(loaded.page));
  }

  function renderStatus(request: FastifyRequest, reply: FastifyReply, loaded: Loaded, verified: boolean) {
    const { page } = loaded;
    const expired = expiredNow(page);
    const status = expired ? 'EXPIRED' : page.status;
    const subStatus = expired ? 'NOT_COMPLETED' : page.subStatus;
    const copy = statusCopy(status, subStatus, loaded.merchantName, page.statusReason);
    const moving = status === 'PENDING' || status === 'PROCESSING';
    const success = status === 'PENDING' || status === 'PROCESSING' || status === 'PROCESSED';
    const returnUrl = success ? page.successReturnUrl : page.failureReturnUrl;
    const csrfToken = tools.csrf.issue(request, reply, csrfScope(page.id));
    return tools.render(
      reply,
      (nonce) =>
        StatusPage({
          nonce,
          summary: summaryOf(loaded),
          copy,
          csrfToken,
          ...(moving ? { refreshSeconds } : {}),
          method: verified ? page.payoutMethod : null,
          returnLabel: returnUrl ? `Return to ${loaded.merchantName}` : null,
          canDecline: verified && status === 'PENDING',
          canRetry: isRetryable(page),
          transaction: page.transactionHash && page.payoutMethod?.type === 'CRYPTO_WALLET' ? { hash: page.transactionHash, explorerUrl: explorerUrl(page.payoutMethod.network, page.transactionHash, page.livemode), sandbox: !page.livemode } : null,
        }),
      renderOptions(page),
    );
  }

  return { load, summaryOf, renderOptions, isVerified, requireCsrf, verifiedPost, backOnInvalidState, expiredNow, renderVerify, renderDestination, renderKyc, renderDecline, renderStatus };
}

export type PayoutPageContext = ReturnType<typeof payoutPageContext>;
