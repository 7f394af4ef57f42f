import type { FastifyReply, FastifyRequest } from 'fastify';
import type { Api } from '../../../http/types.ts';
import type { RateLimiter } from '../../../http/rate-limit.ts';
import { AppError, wrongParameter } from '../../../http/errors.ts';
import type { DashboardSession, DashboardSessions } from '../session.ts';
import type { TwoFactor } from '../two-factor.ts';
import { secondFactorKind } from '../two-factor.ts';
import { field, noticeOf, notFoundPage, param, runAction, screen, sessionCookieName, type ScreenRequest, type ScreenTools } from '../context.ts';
import { dashboardPrefix, modePath, withQuery } from '../paths.ts';
import { confirmFirst } from './confirm.ts';
import { confirmedField } from '../pages/confirm-dialog.tsx';
import { disableTwoFactorConfirmation, EnrolPage, RecoveryCodesPage, regenerateRecoveryCodesConfirmation, requireTwoFactorConfirmation, revokeOtherSessionsConfirmation, revokeSessionConfirmation, SecurityPage } from '../pages/security.tsx';
import { mayReach } from '../access.ts';

/** Requiring two-factor sign-in of the whole team: whoever the matrix lets post the form (owners, `access.ts`). */
export function mayRequireTwoFactor(session: DashboardSession): boolean {
  return mayReach(session.role, 'POST', modePath('sandbox', '/account/security/require'));
}

/**
 * The pages a user may still open while their merchant requires two-factor sign-in and they have not
 * set it up: the enrolment itself, the recovery codes it shows, and signing out.
 */
const enrolmentRoutes: ReadonlySet<string> = new Set([
  `${dashboardPrefix}/:mode/account/security/two-factor`,
  `${dashboardPrefix}/:mode/account/security/recovery-codes`,
  `${dashboardPrefix}/sign-out`,
]);

/** The redirect to enrolment for a session that must set up two-factor sign-in first; null when it may go on. */
export function enrolmentRequired(request: FastifyRequest, session: DashboardSession): string | null {
  if (!session.merchant.requireTwoFactor || session.twoFactorEnabled || enrolmentRoutes.has(request.routeOptions.url ?? '')) {
    return null;
  }
  return modePath('sandbox', '/account/security/two-factor');
}

const securityNotices: Record<string, string> = {
  'two-factor-disabled': 'Two-factor sign-in is off. Signing in needs only your password.',
  'session-revoked': 'The session was signed out.',
  'sessions-revoked': 'Your other sessions were signed out.',
  'require-on': 'Two-factor sign-in is now required for every user of your account.',
  'require-off': 'Two-factor sign-in is no longer required; each user decides.',
};

const securityErrors: Record<string, string> = {
  'require-self': 'Set up two-factor sign-in for yourself first, so that requiring it cannot lock you out.',
  'disable-required': 'Your account requires two-factor sign-in, so it cannot be turned off. An owner can stop requiring it first.',
};

export function registerSecurityScreens(web: Api, tools: ScreenTools, deps: { sessions: DashboardSessions; twoFactor: TwoFactor; secureCookies: boolean; limiter: RateLimiter }): void {
  const { sessions, twoFactor } = deps;
  const base = (view: ScreenRequest) => modePath(view.mode, '/account/security');

  async function securityPage(view: ScreenRequest, request: FastifyRequest, extra: { disableError?: string; status?: number } = {}) {
    const [status, list] = await Promise.all([twoFactor.status(view.session.userId), sessions.listSessions(view.session.userId)]);
    const key = field(request.query, 'notice', 40);
    const errorKey = field(request.query, 'error', 40);
    return view.page(
      (frame) =>
        SecurityPage({
          frame,
          view: {
            twoFactor: status,
            requireTwoFactor: view.session.merchant.requireTwoFactor,
            mayRequire: mayRequireTwoFactor(view.session),
            sessions: list,
            currentSessionId: view.session.id,
            notice: securityNotices[key] ?? noticeOf(request).notice,
            error: securityErrors[errorKey] ?? noticeOf(request).error,
            disableError: extra.disableError,
          },
        }),
      extra.status ? { status: extra.status } : {},
    );
  }

  web.get('/:mode/account/security', async (request, reply) => {
    return securityPage(screen(tools, request, reply), request);
  });

  async function enrolPage(view: ScreenRequest, reply: FastifyReply, error?: string) {
    const enrolment = await twoFactor.enrolment(view.session.userId, view.session.email);
    if (!enrolment) {
      return reply.redirect(base(view), 303);
    }
    const required = view.session.merchant.requireTwoFactor;
    return view.page((frame) => EnrolPage({ frame, enrolment, required, error }), error ? { status: 400 } : {});
  }

  web.get('/:mode/account/security/two-factor', async (request, reply) => {
    return enrolPage(screen(tools, request, reply), reply);
  });

  web.post('/:mode/account/security/two-factor', async (request, reply) => {
    const view = screen(tools, request, reply);
    const code = field(request.body, 'code', 40);
    if (secondFactorKind(code) !== 'totp') {
      return enrolPage(view, reply, 'Enter the 6-digit code your authenticator app shows for Paysail.');
    }
    // Each attempt is a guess at the code: the password-change budget of the user covers it.
    const wait = await deps.limiter.take(`dashboard-two-factor:${view.session.userId}`);
    if (wait > 0) {
      reply.header('Retry-After', String(wait));
      throw new AppError('RATE_LIMITED', `Too many attempts. Wait ${wait} seconds, then try again.`);
    }
    let codes: string[];
    try {
      codes = await twoFactor.enable(view.session.userId, code);
    } catch (error) {
      if (error instanceof AppError && error.code === 'WRONG_PARAMETER') {
        return enrolPage(view, reply, error.message);
      }
      throw error;
    }
    tools.flash.put(reply, view.session, { recoveryCodes: codes.join(' '), enabled: '1' });
    return reply.redirect(modePath(view.mode, '/account/security/recovery-codes'), 303);
  });

  web.get('/:mode/account/security/recovery-codes', async (request, reply) => {
    const view = screen(tools, request, reply);
    const shown = tools.flash.take(request, reply, view.session);
    const codes = shown?.['recoveryCodes']?.split(' ').filter((code) => code !== '') ?? [];
    if (codes.length === 0) {
      // Shown once: a reload lands on the Security screen, which offers to make new ones.
      return reply.redirect(base(view), 303);
    }
    return view.page((frame) => RecoveryCodesPage({ frame, codes, justEnabled: shown?.['enabled'] === '1' }));
  });

  web.post('/:mode/account/security/recovery-codes', async (request, reply) => {
    const view = screen(tools, request, reply);
    if (await confirmFirst(view, request, { section: 'account', back: base(view), confirmation: () => regenerateRecoveryCodesConfirmation })) {
      return reply;
    }
    const codes = await twoFactor.regenerateRecoveryCodes(view.session.userId);
    tools.flash.put(reply, view.session, { recoveryCodes: codes.join(' ') });
    return reply.redirect(modePath(view.mode, '/account/security/recovery-codes'), 303);
  });

  web.post('/:mode/account/security/two-factor/disable', async (request, reply) => {
    const view = screen(tools, request, reply);
    if (view.session.merchant.requireTwoFactor) {
      return reply.redirect(withQuery(base(view), { error: 'disable-required' }), 303);
    }
    const credential = field(request.body, 'credential', 1024);
    const confirmed = field(request.body, confirmedField, 1) === '1';
    // The confirmation page (without JavaScript) carries no code or password: the credential is
    // checked first, and what the page's confirmed post brings back is a one-time proof of that
    // check, sealed in the session's flash cookie (HttpOnly, two minutes, read once).
    const proven = confirmed && credential === '' && tools.flash.take(request, reply, view.session)?.['twoFactorDisableVerified'] === view.session.userId;
    if (!proven) {
      if (credential === '') {
        return securityPage(view, request, { status: 400, disableError: 'Enter a code from your authenticator app, or your password.' });
      }
      const wait = await deps.limiter.take(`dashboard-password:${view.session.userId}`);
      if (wait > 0) {
        reply.header('Retry-After', String(wait));
        return securityPage(view, request, { status: 429, disableError: `Too many attempts. Wait ${wait} seconds, then try again.` });
      }
      const valid = secondFactorKind(credential) === 'totp' ? await twoFactor.verify(view.session.userId, credential) : await sessions.checkPassword(view.session.userId, credential);
      if (!valid) {
        return securityPage(view, request, { status: 400, disableError: 'That is neither a current code from your app nor your password.' });
      }
      if (!confirmed) {
        tools.flash.put(reply, view.session, { twoFactorDisableVerified: view.session.userId });
      }
    }
    if (await confirmFirst(view, request, { section: 'account', back: base(view), confirmation: () => disableTwoFactorConfirmation, carry: false })) {
      return reply;
    }
    await twoFactor.disable(view.session.userId);
    return reply.redirect(withQuery(base(view), { notice: 'two-factor-disabled' }), 303);
  });

  web.post('/:mode/account/security/require', async (request, reply) => {
    const view = screen(tools, request, reply);
    if (!mayRequireTwoFactor(view.session)) {
      throw new AppError('FORBIDDEN', 'Only an owner of the account can change this.');
    }
    const value = field(request.body, 'required', 10);
    if (value !== 'on' && value !== 'off') {
      throw wrongParameter('required', 'must be on or off');
    }
    if (value === 'on' && !view.session.twoFactorEnabled) {
      return reply.redirect(withQuery(base(view), { error: 'require-self' }), 303);
    }
    if (value === 'on' && (await confirmFirst(view, request, { section: 'account', back: base(view), confirmation: () => requireTwoFactorConfirmation }))) {
      return reply;
    }
    await twoFactor.setRequired(view.session.merchant.id, value === 'on');
    return reply.redirect(withQuery(base(view), { notice: value === 'on' ? 'require-on' : 'require-off' }), 303);
  });

  web.post('/:mode/account/security/sessions/revoke-others', async (request, reply) => {
    const view = screen(tools, request, reply);
    const others = (await sessions.listSessions(view.session.userId)).filter((session) => session.id !== view.session.id).length;
    if (await confirmFirst(view, request, { section: 'account', back: base(view), confirmation: () => revokeOtherSessionsConfirmation(others) })) {
      return reply;
    }
    return runAction(reply, base(view), 'sessions-revoked', () => sessions.revokeOtherSessions(view.session.userId, view.session.id));
  });

  web.post('/:mode/account/security/sessions/:sessionId/revoke', async (request, reply) => {
    const view = screen(tools, request, reply);
    const sessionId = param(request, 'sessionId');
    const target = (await sessions.listSessions(view.session.userId)).find((session) => session.id === sessionId);
    if (!target) {
      throw notFoundPage('session');
    }
    const isCurrent = target.id === view.session.id;
    if (await confirmFirst(view, request, { section: 'account', back: base(view), confirmation: () => revokeSessionConfirmation(target, isCurrent) })) {
      return reply;
    }
    await sessions.revokeSession(view.session.userId, sessionId);
    if (isCurrent) {
      reply.clearCookie(sessionCookieName, { httpOnly: true, sameSite: 'strict', path: dashboardPrefix, secure: deps.secureCookies });
      return reply.redirect(withQuery(`${dashboardPrefix}/sign-in`, { signed_out: 1 }), 303);
    }
    return reply.redirect(withQuery(base(view), { notice: 'session-revoked' }), 303);
  });
}
