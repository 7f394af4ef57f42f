import type { FastifyReply, FastifyRequest } from 'fastify';
import type { JSX } from 'hono/jsx/jsx-runtime';
import type { Csrf, ExtraSources } from '../../web/security.ts';
import type { WebTools } from '../../web/scope.ts';
import { AppError } from '../../http/errors.ts';
import type { DashboardSession } from './session.ts';
import type { KeyRing } from '../../crypto/keyring.ts';
import { dashboardPrefix, isMode, type Mode } from './paths.ts';
import type { Frame, Section } from './pages/layout.tsx';
import { visibleSections } from './access.ts';

declare module 'fastify' {
  interface FastifyRequest {
    dashboardSession?: DashboardSession;
  }
}

export const sessionCookieName = 'ps_dashboard_session';

/** The CSRF scope of every form a signed-in user posts: bound to the session. */
export function sessionCsrfScope(session: DashboardSession): string {
  return `dashboard:${session.id}`;
}

export const signInCsrfScope = 'dashboard:sign-in';

export function requireSession(request: FastifyRequest): DashboardSession {
  if (!request.dashboardSession) {
    throw new AppError('UNAUTHORIZED', 'Sign in to use the dashboard');
  }
  return request.dashboardSession;
}

/** The mode segment of the URL; live only for merchants the operator enabled. */
export function requireMode(request: FastifyRequest, session: DashboardSession): Mode {
  const mode = (request.params as Record<string, unknown> | undefined)?.mode;
  if (!isMode(mode)) {
    throw new AppError('NOT_FOUND', 'This dashboard address does not exist. Use the navigation to find the page you need.');
  }
  if (mode === 'live' && !session.merchant.liveEnabled) {
    throw new AppError('LIVE_MODE_NOT_ENABLED', 'Live mode is not enabled for your account yet. Ask your Paysail operator to enable it; meanwhile everything works in sandbox.');
  }
  return mode;
}

/** A string field of a query or a form body ('' when absent or repeated). */
export function field(source: unknown, name: string, maxLength = 500): string {
  const value = (source as Record<string, unknown> | undefined)?.[name];
  return typeof value === 'string' ? value.slice(0, maxLength) : '';
}

/** Every value of a repeated form field (checkboxes). */
export function fieldValues(source: unknown, name: string): string[] {
  const value = (source as Record<string, unknown> | undefined)?.[name];
  if (typeof value === 'string') {
    return [value];
  }
  return Array.isArray(value) ? value.filter((item): item is string => typeof item === 'string') : [];
}

export function param(request: FastifyRequest, name: string): string {
  return field(request.params, name, 200);
}

export const flashCookieName = 'ps_dashboard_flash';
const flashLifetimeSeconds = 120;

/**
 * A one-time secret (a new API key, a webhook signing secret) carried from the POST that created it
 * to the page that shows it once (post/redirect/get: a reload neither re-posts nor shows it again).
 * Sealed with the key ring and bound to the session; HttpOnly, two minutes, read once.
 */
export function createFlash(keyRing: KeyRing, secureCookies: boolean) {
  const options = { httpOnly: true, sameSite: 'strict' as const, path: dashboardPrefix, secure: secureCookies };
  const associatedData = (session: DashboardSession) => `dashboard-flash|${session.id}`;
  return {
    put(reply: FastifyReply, session: DashboardSession, value: Record<string, string>): void {
      reply.setCookie(flashCookieName, keyRing.encrypt(JSON.stringify(value), associatedData(session)), { ...options, maxAge: flashLifetimeSeconds });
    },
    take(request: FastifyRequest, reply: FastifyReply, session: DashboardSession): Record<string, string> | null {
      const sealed = request.cookies[flashCookieName];
      if (!sealed) {
        return null;
      }
      reply.clearCookie(flashCookieName, options);
      try {
        const value: unknown = JSON.parse(keyRing.decrypt(sealed, associatedData(session)));
        return value !== null && typeof value === 'object' ? (value as Record<string, string>) : null;
      } catch {
        return null;
      }
    },
  };
}

export type Flash = ReturnType<typeof createFlash>;

/** Tools every screen's handlers get. */
export interface ScreenTools {
  csrf: Csrf;
  render: WebTools['render'];
  flash: Flash;
  sections: readonly Section[];
}

export interface ScreenRequest {
  session: DashboardSession;
  mode: Mode;
  livemode: boolean;
  /** Renders a signed-in page in the dashboard frame. */
  page(render: (frame: Frame) => JSX.Element, options?: { status?: number; sources?: ExtraSources }): Promise<FastifyReply>;
}

/** Resolves session and mode, and prepares the frame renderer of one request. */
export function screen(tools: ScreenTools, request: FastifyRequest, reply: FastifyReply): ScreenRequest {
  const session = requireSession(request);
  const mode = requireMode(request, session);
  return {
    session,
    mode,
    livemode: mode === 'live',
    page(render, options = {}) {
      const csrfToken = tools.csrf.issue(request, reply, sessionCsrfScope(session));
      return tools.render(
        reply,
        (nonce) =>
          render({ nonce, mode, merchantName: session.merchant.name, email: session.email, liveEnabled: session.merchant.liveEnabled, csrfToken, role: session.role, sections: visibleSections(tools.sections, session.role) }),
        { ...(options.status ? { status: options.status } : {}), ...(options.sources ? { sources: options.sources } : {}) },
      );
    },
  };
}

export function notFoundPage(what: string): AppError {
  return new AppError('NOT_FOUND', `No ${what} with this id exists in this mode of your account. It may belong to the other mode: check the mode switch, or go back to the list.`);
}

/** Known outcomes of actions, shown after a redirect (`?notice=` / `?error=` carry a key, never text). */
export const notices: Record<string, string> = {
  'api-key-revoked': 'The API key was revoked. Requests with it now answer 401.',
  'pii-key-rotated': 'A new PII key is active. Older keys still decrypt what they encrypted.',
  'password-changed': 'Your password was changed. Your other sessions were signed out.',
  released: 'The payout was released and is being processed.',
  'payout-page-created': 'The payout page was created and its amount reserved. Send the customer its link (below).',
  'payment-page-created': 'The payment page was created. Send the customer its link (below).',
  'kyc-approved': "The identity was approved. The customer's waiting payout pages move on.",
  'kyc-rejected': "The identity was rejected. The customer's waiting payout pages fail.",
  canceled: 'The payout page was canceled and its reservation released.',
  reissued: 'The payout page was reissued: it is unlocked, earlier codes no longer work, and the customer was e-mailed the link again.',
  expired: 'The payment page was expired.',
  refunded: 'The refund was made. It shows PENDING until the card processor settles it; PAYMENT_REFUNDED (or REFUND_FAILED) follows.',
  'endpoint-created': 'The webhook endpoint was added.',
  'endpoint-deleted': 'The webhook endpoint was deleted. Its past deliveries stay in the event log.',
  'endpoint-enabled': 'The endpoint is enabled and receives events again.',
  'endpoint-disabled': 'The endpoint is disabled: no event is sent to it until you enable it.',
  'endpoint-updated': 'The events sent to this endpoint were saved.',
  'secret-rotated': 'The signing secret was rotated. Update your integration: the previous secret keeps signing for 24 hours.',
  redelivered: 'The event was queued for delivery again.',
  'subscription-canceled': 'The subscription will end at the end of its current period.',
  'subscription-renewed': 'The current period was ended and the renewal ran (see the invoices below).',
  'branding-saved': 'Your branding was saved. Hosted pages and new e-mails use it from now on.',
  'member-invited': 'The invitation was e-mailed. The link works once, for 7 days.',
  'invite-resent': 'The invitation was e-mailed again with a new link; the earlier link no longer works.',
  'invite-revoked': 'The invitation was revoked: its link no longer works.',
  'role-changed': 'The role was changed. It applies from their next page.',
  'member-removed': 'The member was removed and signed out everywhere.',
  'customer-erased': "The customer's personal data was erased. Their payments, payouts and balances stay; the KYC provider is asked to delete its copy.",
};

export const errorNotices: Record<string, string> = {
  INVALID_STATE: 'This action is not possible now (the status may have changed meanwhile). The page shows the current state and why.',
  WRONG_PARAMETER: 'This action is not possible for this resource as it is now.',
  INSUFFICIENT_FUNDS: 'Your balance cannot cover this action. Add funds and try again.',
  FORBIDDEN: 'This action is not allowed in this mode.',
  'refund-amount': 'Enter the refund amount as a number with at most two decimals (for example 12.50), no more than what is left to refund.',
  'refund-form': 'This refund form is out of date. Reload the page and make the refund again.',
  IDEMPOTENCY_KEY_REUSED: 'This form was already used for something else. Reload the page and try again.',
  'last-owner': 'Your account needs at least one owner. Make another member an owner first.',
  'erase-open-payout': 'This customer has a payout page that is not final yet (created, pending or processing). Cancel it or wait until it is paid, then erase.',
};

export function noticeOf(request: FastifyRequest): { notice: string | undefined; error: string | undefined } {
  return { notice: notices[field(request.query, 'notice', 40)], error: errorNotices[field(request.query, 'error', 40)] };
}

/**
 * Runs an action from a button; expected refusals (409 INVALID_STATE, …) come back as an error
 * notice on `back` rather than an error page, since the page itself shows why.
 */
export async function runAction(reply: FastifyReply, back: string, notice: string, action: () => Promise<unknown>): Promise<FastifyReply> {
  try {
    await action();
  } catch (error) {
    if (error instanceof AppError && error.code in errorNotices && error.statusCode < 500) {
      // An action may name a more precise notice than its error code's.
      const key = typeof error.extra['notice'] === 'string' && error.extra['notice'] in errorNotices ? error.extra['notice'] : error.code;
      return reply.redirect(`${back}${back.includes('?') ? '&' : '?'}error=${key}`, 303);
    }
    throw error;
  }
  return reply.redirect(`${back}${back.includes('?') ? '&' : '?'}notice=${notice}`, 303);
}
