import type { FastifyRequest } from 'fastify';
import { Type } from 'typebox';
import type { Api } from '../../../http/types.ts';
import { AppError } from '../../../http/errors.ts';
import type { WebTools } from '../../scope.ts';
import { isRetryable, type PayoutPageRow } from '../../../modules/payout-pages/index.ts';
import { LockedPage, MethodPage, ReviewPage, type VerifyNotice } from './views.tsx';
import { confirmationProblem, destinationErrors, destinationInput, isMethod, kycErrors, kycInput, reviewDisplay, text } from './form-input.ts';
import { csrfScope, payoutPageContext, sessionCookieName, type PayoutPageDeps } from './page-context.ts';
import { createPayoutStepUp } from './step-up.tsx';
import type { KycService } from '../../../modules/kyc/index.ts';

export { sessionCookieName } from './page-context.ts';

const PageParams = Type.Object({ payoutPageId: Type.String({ maxLength: 100 }) }, { additionalProperties: false });

/**
 * The hosted payout page `/payout-page/<id>`. Anyone with the link sees the amount and the
 * merchant; stored data (the customer's name and identity data) only after the 6-digit code
 * e-mailed to the customer was entered. Confirm, KYC and decline call the same service functions
 * as the sandbox test helpers.
 */
export function registerPayoutPageWebRoutes(web: Api, tools: WebTools, deps: PayoutPageDeps & { kyc: KycService; publicUrl: string }): void {
  const { payoutPages } = deps;
  const { access } = payoutPages;
  const ctx = payoutPageContext(tools, deps);
  const { load, summaryOf, renderOptions, isVerified, requireCsrf, verifiedPost, backOnInvalidState, expiredNow } = ctx;
  type Loaded = Awaited<ReturnType<typeof load>>;
  // Document step-up (step-up.tsx): its own view and POST /payout-page/:id/documents.
  const stepUp = createPayoutStepUp(web, tools, { kyc: deps.kyc, publicUrl: deps.publicUrl, csrfScope, load, summaryOf, renderOptions, isVerified });

  /**
   * Review and confirm: a verified session's post on a page that still takes a destination (CREATED
   * and not expired, or a rejected or returned payout the customer may retry); anything else goes
   * back to the page, which shows where it stands.
   */
  async function destinationStep(request: FastifyRequest, id: string): Promise<{ redirect: string } | { redirect: null; body: Record<string, unknown>; loaded: Loaded }> {
    const { body, redirect } = await verifiedPost(request, id);
    if (redirect) {
      return { redirect };
    }
    const loaded = await load(id);
    if ((loaded.page.status !== 'CREATED' || expiredNow(loaded.page)) && !isRetryable(loaded.page)) {
      return { redirect: `/payout-page/${id}` };
    }
    return { redirect: null, body, loaded };
  }

  web.get('/payout-page/:payoutPageId', { schema: { hide: true, params: PageParams } }, async (request, reply) => {
    const loaded = await load(request.params.payoutPageId);
    const { page } = loaded;
    const query = (request.query ?? {}) as Record<string, unknown>;
    const verified = await isVerified(request, page.id);
    // A rejected or returned payout: the customer may choose other details (from the status page's link on).
    const retrying = isRetryable(page) && (query.step === 'retry' || isMethod(query.method) || typeof query.notice === 'string');
    const stepUpStage = await stepUp.stageOf(page);
    const needsCustomer = (page.status === 'CREATED' && !expiredNow(page)) || (page.status === 'PENDING' && page.subStatus === 'KYC_REQUIRED') || retrying || stepUpStage === 'CAPTURE';
    if (!needsCustomer) {
      if (query.step === 'decline' && verified && page.status === 'PENDING') {
        return ctx.renderDecline(request, reply, loaded);
      }
      return (await stepUp.render(request, reply, loaded, verified)) ?? ctx.renderStatus(request, reply, loaded, verified);
    }
    if (page.lockedAt) {
      return tools.render(reply, (nonce) => LockedPage({ nonce, summary: summaryOf(loaded) }), renderOptions(page, 403));
    }
    if (!verified) {
      const notice = typeof query.notice === 'string' && ['sent', 'recently_sent', 'too_many', 'session_expired'].includes(query.notice) ? (query.notice as VerifyNotice) : null;
      return ctx.renderVerify(request, reply, loaded, notice);
    }
    if (query.step === 'decline') {
      return ctx.renderDecline(request, reply, loaded);
    }
    if (stepUpStage) {
      return (await stepUp.render(request, reply, loaded, verified)) ?? ctx.renderStatus(request, reply, loaded, verified);
    }
    if (page.status === 'PENDING') {
      return ctx.renderKyc(request, reply, loaded, {}, {});
    }
    const chosen = isMethod(query.method) && loaded.supportedMethods.includes(query.method) ? query.method : loaded.supportedMethods.length === 1 ? loaded.supportedMethods[0] : undefined;
    if (chosen) {
      return ctx.renderDestination(request, reply, loaded, chosen, {}, {});
    }
    const greetingName = (await payoutPages.kycPrefill(page.id)).firstName;
    return tools.render(reply, (nonce) => MethodPage({ nonce, summary: summaryOf(loaded), greetingName, methods: loaded.supportedMethods, retrying }), renderOptions(page));
  });

  web.post('/payout-page/:payoutPageId/code', { schema: { hide: true, params: PageParams } }, async (request, reply) => {
    const id = request.params.payoutPageId;
    requireCsrf(request, id, (request.body ?? {}) as Record<string, unknown>);
    const loaded = await load(id);
    if (loaded.page.status !== 'CREATED' && !(loaded.page.status === 'PENDING' && loaded.page.subStatus === 'KYC_REQUIRED') && !isRetryable(loaded.page) && (await stepUp.stageOf(loaded.page)) !== 'CAPTURE') {
      return reply.redirect(`/payout-page/${id}`, 303);
    }
    const outcome = await access.sendCode(id);
    return reply.redirect(`/payout-page/${id}?notice=${outcome}`, 303);
  });

  web.post('/payout-page/:payoutPageId/verify', { schema: { hide: true, params: PageParams } }, async (request, reply) => {
    const id = request.params.payoutPageId;
    const body = (request.body ?? {}) as Record<string, unknown>;
    requireCsrf(request, id, body);
    const loaded = await load(id);
    const result = await access.verify(id, text(body, 'code', 20).replace(/\s/g, ''));
    if (result.outcome === 'verified') {
      reply.setCookie(sessionCookieName, result.sessionToken, {
        path: `/payout-page/${id}`,
        httpOnly: true,
        sameSite: 'lax',
        secure: deps.secureCookies,
        expires: result.expiresAt,
      });
      return reply.redirect(`/payout-page/${id}${isRetryable(loaded.page) ? '?step=retry' : ''}`, 303);
    }
    if (result.outcome === 'locked') {
      return reply.redirect(`/payout-page/${id}`, 303);
    }
    if (result.outcome === 'wrong') {
      return ctx.renderVerify(request, reply, loaded, result.attemptsLeft > 0 ? 'wrong' : 'no_code', 400, result.attemptsLeft);
    }
    return ctx.renderVerify(request, reply, loaded, 'no_code', 400);
  });

  web.post('/payout-page/:payoutPageId/review', { schema: { hide: true, params: PageParams } }, async (request, reply) => {
    const id = request.params.payoutPageId;
    const step = await destinationStep(request, id);
    if (step.redirect !== null) {
      return reply.redirect(step.redirect, 303);
    }
    const { body, loaded } = step;
    const { method, input, values } = destinationInput(body);
    if (!method || !loaded.supportedMethods.includes(method)) {
      return reply.redirect(`/payout-page/${id}`, 303);
    }
    const { destination, problems } = payoutPages.checkDestination(input);
    const mismatch = confirmationProblem(body);
    if (!destination || mismatch) {
      return ctx.renderDestination(request, reply, loaded, method, values, destinationErrors(...problems, ...(mismatch ? [mismatch] : [])), 400);
    }
    const display = reviewDisplay(destination);
    const sealed = payoutPages.sealForReview(loaded.page, destination);
    const csrfToken = tools.csrf.issue(request, reply, csrfScope(id));
    return tools.render(reply, (nonce) => ReviewPage({ nonce, summary: summaryOf(loaded), csrfToken, method, sealed, display }), renderOptions(loaded.page));
  });

  web.post('/payout-page/:payoutPageId/confirm', { schema: { hide: true, params: PageParams } }, async (request, reply) => {
    const id = request.params.payoutPageId;
    const step = await destinationStep(request, id);
    if (step.redirect !== null) {
      return reply.redirect(step.redirect, 303);
    }
    const { body, loaded } = step;
    // What the review step sealed; the details themselves are not in the post (nor in the review page).
    const method = text(body, 'type', 40);
    try {
      await payoutPages.confirmSealed(id, text(body, 'sealed', 4000));
    } catch (error) {
      if (error instanceof AppError && error.code === 'WRONG_PARAMETER' && isMethod(method)) {
        return ctx.renderDestination(request, reply, loaded, method, {}, destinationErrors(error), 400);
      }
      return backOnInvalidState(reply, id, error);
    }
    return reply.redirect(`/payout-page/${id}`, 303);
  });

  web.post('/payout-page/:payoutPageId/kyc', { schema: { hide: true, params: PageParams } }, async (request, reply) => {
    const id = request.params.payoutPageId;
    const { body, redirect } = await verifiedPost(request, id);
    if (redirect) {
      return reply.redirect(redirect, 303);
    }
    const { values, input } = kycInput(body);
    const problems = await payoutPages.kycProblems(id, input);
    if (problems.length > 0) {
      return ctx.renderKyc(request, reply, await load(id), values, kycErrors(...problems), 400);
    }
    try {
      await payoutPages.submitKyc(id, input);
    } catch (error) {
      if (error instanceof AppError && error.code === 'WRONG_PARAMETER') {
        return ctx.renderKyc(request, reply, await load(id), values, kycErrors(error), 400);
      }
      return backOnInvalidState(reply, id, error);
    }
    return reply.redirect(`/payout-page/${id}`, 303);
  });

  web.post('/payout-page/:payoutPageId/decline', { schema: { hide: true, params: PageParams } }, async (request, reply) => {
    const id = request.params.payoutPageId;
    const { redirect } = await verifiedPost(request, id);
    if (redirect) {
      return reply.redirect(redirect, 303);
    }
    let page: PayoutPageRow;
    try {
      page = await payoutPages.decline(id);
    } catch (error) {
      return backOnInvalidState(reply, id, error);
    }
    return reply.redirect(page.failureReturnUrl ?? `/payout-page/${id}`, 303);
  });

  web.post('/payout-page/:payoutPageId/return', { schema: { hide: true, params: PageParams } }, async (request, reply) => {
    const id = request.params.payoutPageId;
    requireCsrf(request, id, (request.body ?? {}) as Record<string, unknown>);
    const { page } = await load(id);
    const success = !expiredNow(page) && (page.status === 'PENDING' || page.status === 'PROCESSING' || page.status === 'PROCESSED');
    const target = success ? page.successReturnUrl : page.failureReturnUrl;
    return reply.redirect(target ?? `/payout-page/${id}`, 303);
  });
}
