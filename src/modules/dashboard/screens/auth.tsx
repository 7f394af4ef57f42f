import type { FastifyReply, FastifyRequest } from 'fastify';
import type { Api } from '../../../http/types.ts';
import type { RateLimiter } from '../../../http/rate-limit.ts';
import { AppError } from '../../../http/errors.ts';
import type { Csrf } from '../../../web/security.ts';
import type { WebTools } from '../../../web/scope.ts';
import type { DashboardSessions, SessionClient } from '../session.ts';
import type { TwoFactor } from '../two-factor.ts';
import { secondFactorKind } from '../two-factor.ts';
import { field, noticeOf, requireSession, screen, sessionCookieName, signInCsrfScope, type ScreenTools } from '../context.ts';
import { dashboardPrefix, modePath, withQuery } from '../paths.ts';
import { AccountPage, SecondFactorPage, SignInPage } from '../pages/auth.tsx';

/** Only dashboard paths of this site are followed after sign-in (no open redirect). */
export function safeNext(raw: string): string | undefined {
  return /^\/dashboard(\/[A-Za-z0-9_\-/?=&%.]*)?$/.test(raw) && !raw.includes('//') && !raw.startsWith(`${dashboardPrefix}/sign-`) ? raw : undefined;
}

function sessionCookieOptions(secureCookies: boolean) {
  return { httpOnly: true, sameSite: 'strict' as const, path: dashboardPrefix, secure: secureCookies };
}

/** The cookie of the pending second step of a sign-in (password right, code not yet given). */
export const pendingSignInCookieName = 'ps_dashboard_pending';

/** What the session list shows about the browser that signed in. */
export function sessionClientOf(request: FastifyRequest): SessionClient {
  return { address: request.ip, userAgent: String(request.headers['user-agent'] ?? '') };
}

export interface SignInLimiters {
  perAccountAndAddress: RateLimiter;
  perAccount: RateLimiter;
  perAddress: RateLimiter;
}

/**
 * One sign-in attempt against the three budgets (see `signInLimits` in routes.tsx); the seconds to
 * wait when any of them is spent, else 0. Unknown e-mails have budgets too, so a 429 never tells
 * whether an account exists.
 */
async function takeSignInAttempt(limiters: SignInLimiters, email: string, address: string): Promise<number> {
  const waits = [
    await limiters.perAccountAndAddress.take(`dashboard-sign-in:${email}|${address}`),
    await limiters.perAccount.take(`dashboard-sign-in-account:${email}`),
    await limiters.perAddress.take(`dashboard-sign-in-address:${address}`),
  ];
  return Math.max(...waits);
}

/** Sign-in and sign-out pages: outside the signed-in scope (no session needed to see them). */
export function registerSignInRoutes(
  web: Api,
  deps: { sessions: DashboardSessions; twoFactor: TwoFactor; csrf: Csrf; render: WebTools['render']; limiters: SignInLimiters; secureCookies: boolean },
): void {
  const { sessions, twoFactor, csrf, render, limiters } = deps;

  function signInPage(request: FastifyRequest, reply: FastifyReply, state: { email?: string; next?: string; error?: string; notice?: string; status?: number }) {
    const csrfToken = csrf.issue(request, reply, signInCsrfScope);
    return render(reply, (nonce) => SignInPage({ nonce, csrfToken, ...state }), state.status ? { status: state.status } : {});
  }

  web.get('/', async (request, reply) => {
    const session = await sessions.authenticate(request.cookies[sessionCookieName]);
    if (!session) {
      return reply.redirect(`${dashboardPrefix}/sign-in`, 303);
    }
    return reply.redirect(modePath(session.merchant.liveEnabled ? 'live' : 'sandbox'), 303);
  });

  web.get('/sign-in', async (request, reply) => {
    const next = safeNext(field(request.query, 'next', 300));
    if (await sessions.authenticate(request.cookies[sessionCookieName])) {
      return reply.redirect(next ?? dashboardPrefix, 303);
    }
    const signedOut = field(request.query, 'signed_out', 5) === '1';
    const expired = field(request.query, 'expired', 5) === '1';
    const notice = signedOut ? 'You are signed out.' : expired ? 'Your sign-in took more than five minutes. Enter your e-mail and password again.' : undefined;
    return signInPage(request, reply, { ...(next ? { next } : {}), ...(notice ? { notice } : {}) });
  });

  web.post('/sign-in', async (request, reply) => {
    const email = field(request.body, 'email', 254).trim().toLowerCase();
    const password = field(request.body, 'password', 1024);
    const next = safeNext(field(request.body, 'next', 300));
    const keep = { email, ...(next ? { next } : {}) };
    if (!csrf.verify(request, signInCsrfScope, field(request.body, '_csrf', 200))) {
      return signInPage(request, reply, { ...keep, status: 403, error: 'The sign-in form expired. Enter your e-mail and password again.' });
    }
    if (email === '' || password === '') {
      return signInPage(request, reply, { ...keep, status: 400, error: 'Enter your e-mail and your password.' });
    }
    const wait = await takeSignInAttempt(limiters, email, request.ip);
    if (wait > 0) {
      reply.header('Retry-After', String(wait));
      return signInPage(request, reply, { ...keep, status: 429, error: `Too many sign-in attempts. Wait ${wait} seconds, then try again.` });
    }
    const signedIn = await sessions.signIn(email, password, sessionClientOf(request));
    if (!signedIn) {
      return signInPage(request, reply, { ...keep, status: 401, error: 'The e-mail or the password is not correct.' });
    }
    if (signedIn.kind === 'second-factor') {
      reply.setCookie(pendingSignInCookieName, signedIn.token, { ...sessionCookieOptions(deps.secureCookies), expires: signedIn.expiresAt });
      return reply.redirect(withQuery(`${dashboardPrefix}/sign-in/code`, { next }), 303);
    }
    reply.setCookie(sessionCookieName, signedIn.token, { ...sessionCookieOptions(deps.secureCookies), expires: signedIn.expiresAt });
    return reply.redirect(next ?? dashboardPrefix, 303);
  });

  /** The pending second step of this browser: its user, or null (none, used or expired: sign in again). */
  async function pendingUser(request: FastifyRequest): Promise<{ userId: string; email: string } | null> {
    const userId = await twoFactor.challengeUser(request.cookies[pendingSignInCookieName]);
    const email = userId ? await sessions.emailOf(userId) : null;
    return userId && email ? { userId, email } : null;
  }

  function startAgain(reply: FastifyReply, next: string | undefined) {
    reply.clearCookie(pendingSignInCookieName, sessionCookieOptions(deps.secureCookies));
    return reply.redirect(withQuery(`${dashboardPrefix}/sign-in`, { expired: 1, next }), 303);
  }

  function codePage(request: FastifyRequest, reply: FastifyReply, state: { email: string; next: string | undefined; error?: string; status?: number }) {
    const csrfToken = csrf.issue(request, reply, signInCsrfScope);
    return render(reply, (nonce) => SecondFactorPage({ nonce, csrfToken, ...state }), state.status ? { status: state.status } : {});
  }

  web.get('/sign-in/code', async (request, reply) => {
    const next = safeNext(field(request.query, 'next', 300));
    const pending = await pendingUser(request);
    if (!pending) {
      return startAgain(reply, next);
    }
    return codePage(request, reply, { email: pending.email, next });
  });

  web.post('/sign-in/code', async (request, reply) => {
    const next = safeNext(field(request.body, 'next', 300));
    const code = field(request.body, 'code', 40);
    const pending = await pendingUser(request);
    if (!pending) {
      return startAgain(reply, next);
    }
    const keep = { email: pending.email, next };
    if (!csrf.verify(request, signInCsrfScope, field(request.body, '_csrf', 200))) {
      return codePage(request, reply, { ...keep, status: 403, error: 'The form expired. Enter the code again.' });
    }
    if (secondFactorKind(code) === null) {
      return codePage(request, reply, { ...keep, status: 400, error: 'Enter the 6-digit code from your app, or a recovery code (10 letters and digits).' });
    }
    // A code is a guess like a password: it draws on the same budgets as the password step.
    const wait = await takeSignInAttempt(limiters, pending.email, request.ip);
    if (wait > 0) {
      reply.header('Retry-After', String(wait));
      return codePage(request, reply, { ...keep, status: 429, error: `Too many sign-in attempts. Wait ${wait} seconds, then try again.` });
    }
    if (!(await twoFactor.verify(pending.userId, code))) {
      return codePage(request, reply, { ...keep, status: 401, error: 'The code is not correct, or it was already used. Wait for the next code in your app and try again.' });
    }
    const token = request.cookies[pendingSignInCookieName] ?? '';
    // Closing the step is the one way to a session: two tabs posting the right code open one session.
    if (!(await twoFactor.closeChallenge(token))) {
      return startAgain(reply, next);
    }
    const signedIn = await sessions.openSession(pending.userId, sessionClientOf(request));
    reply.clearCookie(pendingSignInCookieName, sessionCookieOptions(deps.secureCookies));
    reply.setCookie(sessionCookieName, signedIn.token, { ...sessionCookieOptions(deps.secureCookies), expires: signedIn.expiresAt });
    return reply.redirect(next ?? dashboardPrefix, 303);
  });
}

/** Sign-out and the account page: inside the signed-in scope (CSRF checked by its hook). */
export function registerAccountRoutes(web: Api, tools: ScreenTools, deps: { sessions: DashboardSessions; secureCookies: boolean; limiter: RateLimiter }): void {
  const { sessions } = deps;

  web.post('/sign-out', async (request, reply) => {
    const session = requireSession(request);
    await sessions.signOut(session.id);
    reply.clearCookie(sessionCookieName, sessionCookieOptions(deps.secureCookies));
    return reply.redirect(withQuery(`${dashboardPrefix}/sign-in`, { signed_out: 1 }), 303);
  });

  web.get('/:mode/account', async (request, reply) => {
    const view = screen(tools, request, reply);
    return view.page((frame) => AccountPage({ frame, ...noticeOf(request), expiresAt: view.session.expiresAt }));
  });

  web.post('/:mode/account/password', async (request, reply) => {
    const view = screen(tools, request, reply);
    const accountPage = (error: string, status: number) => view.page((frame) => AccountPage({ frame, error, notice: undefined, expiresAt: view.session.expiresAt }), { status });
    // Per user, whatever the session: each attempt checks the current password, so it is a guess.
    const wait = await deps.limiter.take(`dashboard-password:${view.session.userId}`);
    if (wait > 0) {
      reply.header('Retry-After', String(wait));
      return accountPage(`Too many password change attempts. Wait ${wait} seconds, then try again.`, 429);
    }
    let renewed: { token: string; expiresAt: Date };
    try {
      renewed = await sessions.changePassword(view.session, {
        currentPassword: field(request.body, 'currentPassword', 1024),
        newPassword: field(request.body, 'newPassword', 1024),
        confirmation: field(request.body, 'confirmation', 1024),
      }, sessionClientOf(request));
    } catch (error) {
      if (error instanceof AppError && error.code === 'WRONG_PARAMETER') {
        return accountPage(`${error.message}.`, 400);
      }
      throw error;
    }
    // The session token changed with the password: the old cookie no longer signs anyone in.
    reply.setCookie(sessionCookieName, renewed.token, { ...sessionCookieOptions(deps.secureCookies), expires: renewed.expiresAt });
    return reply.redirect(withQuery(modePath(view.mode, '/account'), { notice: 'password-changed' }), 303);
  });
}
