import { Type } from 'typebox';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { Api } from '../../../http/types.ts';
import { AppError, notFound } from '../../../http/errors.ts';
import { isId } from '../../../crypto/ids.ts';
import type { WebTools } from '../../scope.ts';
import type { Clock } from '../../../jobs/worker.ts';
import type { PayoutPagesService } from '../../../modules/payout-pages/service.ts';
import type { PayoutPageRow } from '../../../modules/payout-pages/repository.ts';
import type { KycInput } from '../../../modules/payout-pages/schemas.ts';
import type { PayoutMethodInput, PayoutMethodType } from '../../../modules/payout-pages/destinations.ts';
import { isRetryable } from '../../../modules/payout-pages/customer-flow.ts';
import {
  DeclinePage,
  DestinationPage,
  KycPage,
  MethodPage,
  ReviewPage,
  StatusPage,
  VerifyPage,
  networkLabels,
  statusCopy,
  type DestinationValues,
  type FieldErrors,
  type PageSummary,
  type VerifyNotice,
} from './views.tsx';
import { createPayoutStepUp } from './step-up.tsx';
import type { KycService } from '../../../modules/kyc/service.ts';

const PageParams = Type.Object({ payoutPageId: Type.String({ maxLength: 100 }) }, { additionalProperties: false });

export const sessionCookieName = 'ps_payout_session';
const refreshSeconds = 5;

const destinationFieldNames = ['accountHolderName', 'routingNumber', 'accountNumber', 'accountType', 'network', 'address'] as const;
const kycFieldNames = ['firstName', 'middleName', 'lastName', 'dateOfBirth', 'phoneNumber', 'address.line1', 'address.line2', 'address.city', 'address.state', 'address.postalCode', 'address.country'] as const;

function text(body: Record<string, unknown>, name: string, max = 255): string {
  const value = body[name];
  return typeof value === 'string' ? value.slice(0, max) : '';
}

function originOf(url: string | null): string[] {
  if (!url) {
    return [];
  }
  try {
    return [new URL(url).origin];
  } catch {
    return [];
  }
}

function csrfScope(id: string): string {
  return `payout-page:${id}`;
}

function isMethod(value: unknown): value is PayoutMethodType {
  return value === 'BANK_TRANSFER' || value === 'CRYPTO_WALLET';
}

/** An API error's field (`payoutMethod.routingNumber`, `kyc.phoneNumber`, `address.state`) → the form's input name. */
function formField(error: AppError, prefixes: readonly string[]): string {
  let field = typeof error.extra.field === 'string' ? error.extra.field : '';
  for (const prefix of prefixes) {
    if (field.startsWith(prefix)) {
      field = field.slice(prefix.length);
    }
  }
  return field;
}

function ruleOf(error: AppError, field: string, prefixes: readonly string[]): string {
  let message = error.message;
  for (const prefix of ['', ...prefixes]) {
    if (message.startsWith(`${prefix}${field} `)) {
      message = message.slice(`${prefix}${field} `.length);
    }
  }
  return message.charAt(0).toUpperCase() + message.slice(1) + (message.endsWith('.') ? '' : '.');
}

/**
 * The hosted payout page `/payout-page/<id>`. Anyone with the link sees the amount and the
 * merchant; stored data (the customer's name and identity data) only after the 6-digit code
 * e-mailed to the customer was entered. Confirm, KYC and decline call the same service functions
 * as the sandbox test helpers.
 */
export function registerPayoutPageWebRoutes(web: Api, tools: WebTools, deps: { payoutPages: PayoutPagesService; kyc: KycService; publicUrl: string; clock: Clock; secureCookies: boolean }): void {
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
    return { status, formActions: [...new Set([...originOf(page.successReturnUrl), ...originOf(page.failureReturnUrl)])] };
  }

  async function isVerified(request: FastifyRequest, id: string): Promise<boolean> {
    return access.hasSession(id, request.cookies[sessionCookieName]);
  }

  function requireCsrf(request: FastifyRequest, id: string, body: Record<string, unknown>): void {
    if (!tools.csrf.verify(request, csrfScope(id), body._csrf)) {
      throw new AppError('FORBIDDEN', 'This form has expired or did not come from the payout page. Go back, reload the page and try again.');
    }
  }

  /** The URL to send a visitor without a verified session to (they verify first), or null. */
  async function unverifiedRedirect(request: FastifyRequest, id: string): Promise<string | null> {
    return (await isVerified(request, id)) ? null : `/payout-page/${id}?notice=session_expired`;
  }

  function expiredNow(page: PayoutPageRow): boolean {
    return page.status === 'CREATED' && page.expiresAt.getTime() <= clock.now().getTime();
  }

  // Document step-up (step-up.tsx): its own view and POST /payout-page/:id/documents.
  const stepUp = createPayoutStepUp(web, tools, { kyc: deps.kyc, publicUrl: deps.publicUrl, csrfScope, load, summaryOf, renderOptions, isVerified });

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
        }),
      renderOptions(page),
    );
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
        const csrfToken = tools.csrf.issue(request, reply, csrfScope(page.id));
        return tools.render(reply, (nonce) => DeclinePage({ nonce, summary: summaryOf(loaded), csrfToken }), renderOptions(page));
      }
      return (await stepUp.render(request, reply, loaded, verified)) ?? renderStatus(request, reply, loaded, verified);
    }
    if (!verified) {
      const notice = typeof query.notice === 'string' && ['sent', 'recently_sent', 'too_many', 'session_expired'].includes(query.notice) ? (query.notice as VerifyNotice) : null;
      return renderVerify(request, reply, loaded, notice);
    }
    if (query.step === 'decline') {
      const csrfToken = tools.csrf.issue(request, reply, csrfScope(page.id));
      return tools.render(reply, (nonce) => DeclinePage({ nonce, summary: summaryOf(loaded), csrfToken }), renderOptions(page));
    }
    if (stepUpStage) {
      return (await stepUp.render(request, reply, loaded, verified)) ?? renderStatus(request, reply, loaded, verified);
    }
    if (page.status === 'PENDING') {
      return renderKyc(request, reply, loaded, {}, {});
    }
    const chosen = isMethod(query.method) && loaded.supportedMethods.includes(query.method) ? query.method : loaded.supportedMethods.length === 1 ? loaded.supportedMethods[0] : undefined;
    if (chosen) {
      return renderDestination(request, reply, loaded, chosen, {}, {});
    }
    const greetingName = (await payoutPages.kycPrefill(page.id)).firstName;
    return tools.render(reply, (nonce) => MethodPage({ nonce, summary: summaryOf(loaded), greetingName, methods: loaded.supportedMethods }), renderOptions(page));
  });

  web.post('/payout-page/:payoutPageId/code', { schema: { hide: true, params: PageParams } }, async (request, reply) => {
    const id = request.params.payoutPageId;
    const body = (request.body ?? {}) as Record<string, unknown>;
    requireCsrf(request, id, body);
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
    if (result.outcome === 'wrong') {
      return renderVerify(request, reply, loaded, result.attemptsLeft > 0 ? 'wrong' : 'no_code', 400, result.attemptsLeft);
    }
    return renderVerify(request, reply, loaded, 'no_code', 400);
  });

  function destinationInput(body: Record<string, unknown>): { method: PayoutMethodType | null; input: PayoutMethodInput; values: DestinationValues } {
    const type = text(body, 'type', 40);
    const method = isMethod(type) ? type : null;
    const values: DestinationValues = {};
    const input: PayoutMethodInput = { type };
    const fields = method === 'BANK_TRANSFER' ? (['accountHolderName', 'routingNumber', 'accountNumber', 'accountType'] as const) : (['network', 'address'] as const);
    for (const name of fields) {
      const value = text(body, name, 200);
      values[name] = value;
      input[name] = value;
    }
    return { method, input, values };
  }

  function destinationErrors(error: AppError): FieldErrors {
    const field = formField(error, ['payoutMethod.']);
    const name = (destinationFieldNames as readonly string[]).includes(field) ? field : field === 'type' ? 'type' : 'accountHolderName';
    return { [name]: ruleOf(error, field, ['payoutMethod.']) };
  }

  web.post('/payout-page/:payoutPageId/review', { schema: { hide: true, params: PageParams } }, async (request, reply) => {
    const id = request.params.payoutPageId;
    const body = (request.body ?? {}) as Record<string, unknown>;
    requireCsrf(request, id, body);
    const unverified = await unverifiedRedirect(request, id);
    if (unverified) {
      return reply.redirect(unverified, 303);
    }
    const loaded = await load(id);
    if ((loaded.page.status !== 'CREATED' || expiredNow(loaded.page)) && !isRetryable(loaded.page)) {
      return reply.redirect(`/payout-page/${id}`, 303);
    }
    const { method, input, values } = destinationInput(body);
    if (!method || !loaded.supportedMethods.includes(method)) {
      return reply.redirect(`/payout-page/${id}`, 303);
    }
    let destination;
    try {
      destination = payoutPages.validateDestination(input);
    } catch (error) {
      if (error instanceof AppError && error.code === 'WRONG_PARAMETER') {
        return renderDestination(request, reply, loaded, method, values, destinationErrors(error), 400);
      }
      throw error;
    }
    const display: Array<[string, string]> =
      destination.type === 'BANK_TRANSFER'
        ? [
            ['Account holder', destination.accountHolderName],
            ['Routing number', destination.routingNumber],
            ['Account number', `•••• ${destination.accountNumber.slice(-4)}`],
            ['Account type', destination.accountType === 'CHECKING' ? 'Checking' : 'Savings'],
          ]
        : [
            ['Network', networkLabels[destination.network]],
            ['Wallet address', destination.address],
          ];
    const normalized: DestinationValues = Object.fromEntries(Object.entries(destination).filter(([name]) => name !== 'type').map(([name, value]) => [name, String(value)]));
    const csrfToken = tools.csrf.issue(request, reply, csrfScope(id));
    return tools.render(reply, (nonce) => ReviewPage({ nonce, summary: summaryOf(loaded), csrfToken, method, values: normalized, display }), renderOptions(loaded.page));
  });

  web.post('/payout-page/:payoutPageId/confirm', { schema: { hide: true, params: PageParams } }, async (request, reply) => {
    const id = request.params.payoutPageId;
    const body = (request.body ?? {}) as Record<string, unknown>;
    requireCsrf(request, id, body);
    const unverified = await unverifiedRedirect(request, id);
    if (unverified) {
      return reply.redirect(unverified, 303);
    }
    const { method, input, values } = destinationInput(body);
    try {
      await payoutPages.confirm(id, input);
    } catch (error) {
      if (error instanceof AppError && error.code === 'WRONG_PARAMETER' && method) {
        return renderDestination(request, reply, await load(id), method, values, destinationErrors(error), 400);
      }
      if (error instanceof AppError && error.code === 'INVALID_STATE') {
        return reply.redirect(`/payout-page/${id}`, 303);
      }
      throw error;
    }
    return reply.redirect(`/payout-page/${id}`, 303);
  });

  web.post('/payout-page/:payoutPageId/kyc', { schema: { hide: true, params: PageParams } }, async (request, reply) => {
    const id = request.params.payoutPageId;
    const body = (request.body ?? {}) as Record<string, unknown>;
    requireCsrf(request, id, body);
    const unverified = await unverifiedRedirect(request, id);
    if (unverified) {
      return reply.redirect(unverified, 303);
    }
    const values: Record<string, string> = {};
    for (const name of kycFieldNames) {
      values[name] = text(body, name, name === 'phoneNumber' ? 20 : 255).trim();
    }
    const input: KycInput = {};
    const address: NonNullable<KycInput['address']> = {};
    for (const name of kycFieldNames) {
      const value = values[name];
      if (!value) {
        continue;
      }
      if (name.startsWith('address.')) {
        address[name.slice('address.'.length) as keyof typeof address] = value;
      } else {
        input[name as Exclude<(typeof kycFieldNames)[number], `address.${string}`>] = value;
      }
    }
    if (Object.keys(address).length > 0) {
      input.address = address;
    }
    try {
      await payoutPages.submitKyc(id, input);
    } catch (error) {
      if (error instanceof AppError && error.code === 'WRONG_PARAMETER') {
        const field = formField(error, ['kyc.']);
        const name = (kycFieldNames as readonly string[]).includes(field) ? field : 'firstName';
        return renderKyc(request, reply, await load(id), values, { [name]: ruleOf(error, field, ['kyc.']) }, 400);
      }
      if (error instanceof AppError && error.code === 'INVALID_STATE') {
        return reply.redirect(`/payout-page/${id}`, 303);
      }
      throw error;
    }
    return reply.redirect(`/payout-page/${id}`, 303);
  });

  web.post('/payout-page/:payoutPageId/decline', { schema: { hide: true, params: PageParams } }, async (request, reply) => {
    const id = request.params.payoutPageId;
    const body = (request.body ?? {}) as Record<string, unknown>;
    requireCsrf(request, id, body);
    const unverified = await unverifiedRedirect(request, id);
    if (unverified) {
      return reply.redirect(unverified, 303);
    }
    let page: PayoutPageRow;
    try {
      page = await payoutPages.decline(id);
    } catch (error) {
      if (error instanceof AppError && error.code === 'INVALID_STATE') {
        return reply.redirect(`/payout-page/${id}`, 303);
      }
      throw error;
    }
    return reply.redirect(page.failureReturnUrl ?? `/payout-page/${id}`, 303);
  });

  web.post('/payout-page/:payoutPageId/return', { schema: { hide: true, params: PageParams } }, async (request, reply) => {
    const id = request.params.payoutPageId;
    const body = (request.body ?? {}) as Record<string, unknown>;
    requireCsrf(request, id, body);
    const { page } = await load(id);
    const success = !expiredNow(page) && (page.status === 'PENDING' || page.status === 'PROCESSING' || page.status === 'PROCESSED');
    const target = success ? page.successReturnUrl : page.failureReturnUrl;
    return reply.redirect(target ?? `/payout-page/${id}`, 303);
  });
}

