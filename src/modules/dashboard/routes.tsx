import type { FastifyReply, FastifyRequest } from 'fastify';
import type { Api } from '../../http/types.ts';
import type { Platform } from '../../platform.ts';
import { AppError, isExpected } from '../../http/errors.ts';
import { sendError, toAppError } from '../../http/core.ts';
import { createMemoryRateLimiter, createRedisRateLimiter } from '../../http/rate-limit.ts';
import { registerWebScope } from '../../web/scope.ts';
import { createDashboardSessions } from './session.ts';
import { createTwoFactor } from './two-factor.ts';
import { createFlash, field, requireSession, sessionCookieName, sessionCsrfScope, type ScreenTools } from './context.ts';
import { dashboardPrefix, isMode, withQuery, type Mode } from './paths.ts';
import type { Section } from './pages/layout.tsx';
import { DashboardErrorPage } from './pages/errors.tsx';
import { createCustomersPresenter } from './presenters/customers.ts';
import { createDevelopersPresenter } from './presenters/developers.ts';
import { createFraudReportsPresenter } from './presenters/fraud-reports.ts';
import { createDisputesPresenter } from './presenters/disputes.ts';
import { registerDisputeScreens } from './screens/disputes.tsx';
import { createInboxPresenter } from './presenters/inbox.ts';
import { createOverviewPresenter } from './presenters/overview.ts';
import { createPaymentPagesPresenter } from './presenters/payment-pages.ts';
import { createPayoutPagesPresenter } from './presenters/payout-pages.ts';
import { createSubscriptionsPresenter } from './presenters/subscriptions.ts';
import { createWebhooksPresenter } from './presenters/webhooks.ts';
import { registerAccountRoutes, registerSignInRoutes } from './screens/auth.tsx';
import { enrolmentRequired, registerSecurityScreens } from './screens/security.tsx';
import { registerCustomerScreens } from './screens/customers.tsx';
import { registerKeyScreens } from './screens/developers.tsx';
import { registerFraudReportScreens } from './screens/fraud-reports.tsx';
import { registerInboxScreens } from './screens/inbox.tsx';
import { registerOverviewScreen } from './screens/overview.tsx';
import { registerPaymentPageScreens } from './screens/payment-pages.tsx';
import { registerPayoutPageScreens } from './screens/payout-pages.tsx';
import { registerCreatePageScreens } from './screens/create-pages.tsx';
import { registerSubscriptionScreens } from './screens/subscriptions.tsx';
import { registerWebhookScreens } from './screens/webhooks.tsx';
import { registerAuditLogScreens } from './screens/audit-log.tsx';
import { registerBrandingScreens } from './screens/branding.tsx';
import { createDashboardAuditHook, dashboardRoutePath } from './audit.ts';
import { isListedRoute, mayUse, roleWords, routeKey, visibleSections } from './access.ts';
import { createTeamService } from './team.ts';
import { registerTeamScreens } from './screens/team.tsx';
import { registerInviteRoutes } from './screens/invite.tsx';

/**
 * Sign-in and password-change throttling, token buckets (`burst` attempts, refilled at `perSecond`):
 * - per e-mail and client address: 5 a minute, the ordinary typo budget of one person;
 * - per e-mail, whatever the address: 20 per 15 minutes, so guessing one account's password from
 *   many addresses (a botnet) stays slow;
 * - per client address, whatever the e-mail: 30 a minute, so one address cannot try a list of
 *   accounts (credential stuffing);
 * - password changes per signed-in user: 5 per 15 minutes (a stolen session cannot guess the
 *   current password quickly); the same budget covers codes typed to turn two-factor sign-in on or
 *   off, and the password typed to turn it off.
 * The code of the second sign-in step draws on the three sign-in budgets, like a password.
 */
export const signInLimits = {
  perAccountAndAddress: { burst: 5, perSecond: 5 / 60 },
  perAccount: { burst: 20, perSecond: 20 / 900 },
  perAddress: { burst: 30, perSecond: 30 / 60 },
  passwordChange: { burst: 5, perSecond: 5 / 900 },
} as const;

/** Whether the request asks for JSON rather than a page (`Accept: application/json`, without text/html). */
function prefersJson(request: FastifyRequest): boolean {
  const accept = String(request.headers.accept ?? '');
  return accept.includes('application/json') && !accept.includes('text/html');
}

/**
 * The merchant dashboard at /dashboard (docs/API.md §1): server-rendered pages whose read models are
 * presenters (SQL scoped by merchant and mode) and whose actions call the same services as the API.
 */
export async function registerDashboard(app: Api, platform: Platform): Promise<void> {
  const { config, services, database, clock, keyRing } = platform;
  const twoFactor = createTwoFactor({ database, clock, keyRing });
  const sessions = createDashboardSessions({ database, clock, twoFactor });
  const createLimiter = (limit: { burst: number; perSecond: number }) =>
    config.redisUrl ? createRedisRateLimiter(config.redisUrl, limit.perSecond, limit.burst) : createMemoryRateLimiter(limit.perSecond, limit.burst);
  const limiters = {
    perAccountAndAddress: createLimiter(signInLimits.perAccountAndAddress),
    perAccount: createLimiter(signInLimits.perAccount),
    perAddress: createLimiter(signInLimits.perAddress),
    passwordChange: createLimiter(signInLimits.passwordChange),
  };
  app.addHook('onClose', async () => {
    await Promise.all(Object.values(limiters).map((limiter) => limiter.close()));
  });
  const secureCookies = config.publicUrl.startsWith('https://');
  const team = createTeamService({ database, clock, keyRing, publicUrl: config.publicUrl });

  const sections: Section[] = ['overview', 'customers', 'payout-pages', 'payment-pages', 'subscriptions', 'entitlements', 'fraud-reports', 'disputes', 'api-keys', 'webhooks', 'events', 'pii-key', 'branding', 'inbox', 'audit-log', 'team'];
  const paymentPages = createPaymentPagesPresenter({ database, paymentPages: services.paymentPages, refunds: services.refunds });
  const presenters = {
    overview: createOverviewPresenter({ database, ledger: services.ledger }),
    customers: createCustomersPresenter({ database, customers: services.customers }),
    payoutPages: createPayoutPagesPresenter({ database, payoutPages: services.payoutPages }),
    paymentPages,
    subscriptions: createSubscriptionsPresenter({ database, subscriptions: services.subscriptions }),
    fraudReports: createFraudReportsPresenter({ fraudReports: services.fraudReports, payments: paymentPages }),
    disputes: createDisputesPresenter({ database }),
    developers: createDevelopersPresenter({ database }),
    webhooks: createWebhooksPresenter({ database, keyRing, webhooks: services.webhooks, events: services.events }),
    inbox: createInboxPresenter({ database, keyRing }),
  };

  await registerWebScope(app, { csrfSecret: keyRing.deriveKey('csrf'), secureCookies, prefix: dashboardPrefix }, async (web, { csrf, render }) => {
    // Pages are not part of the JSON API's OpenAPI document.
    web.addHook('onRoute', (route) => {
      route.schema = { ...route.schema, hide: true };
    });

    registerSignInRoutes(web, { sessions, twoFactor, csrf, render, limiters, secureCookies });
    await registerInviteRoutes(web, { team, csrf, render, secureCookies, audit: services.audit, limiter: limiters.perAddress });

    // A signed-in user gets the 404 inside the dashboard frame (header, mode switch, sections), in
    // the mode of the address when it names one they may use.
    web.setNotFoundHandler(async (request, reply) => {
      const session = await sessions.authenticate(request.cookies[sessionCookieName]);
      const message = 'This dashboard address does not exist.';
      if (!session) {
        return render(reply, (nonce) => DashboardErrorPage({ frame: null, nonce, status: 404, message, requestId: request.id }), { status: 404 });
      }
      const segment = request.url.slice(dashboardPrefix.length).split(/[/?#]/)[1];
      const mode: Mode = segment === 'live' && session.merchant.liveEnabled ? 'live' : 'sandbox';
      const csrfToken = csrf.issue(request, reply, sessionCsrfScope(session));
      return render(
        reply,
        (nonce) =>
          DashboardErrorPage({
            frame: { nonce, mode, merchantName: session.merchant.name, email: session.email, liveEnabled: session.merchant.liveEnabled, csrfToken, role: session.role, sections: visibleSections(sections, session.role) },
            nonce,
            status: 404,
            message,
            requestId: request.id,
          }),
        { status: 404 },
      );
    });

    await web.register(async (signedIn) => {
      const tools: ScreenTools = { csrf, render, sections, flash: createFlash(keyRing, secureCookies) };

      // Team access (access.ts): a signed-in route missing from the matrix cannot be registered, so
      // a new screen or form cannot forget its roles.
      signedIn.addHook('onRoute', (route) => {
        const path = route.url.startsWith(dashboardPrefix) ? route.url.slice(dashboardPrefix.length) : route.url;
        for (const method of [route.method].flat()) {
          if (!isListedRoute(method, path)) {
            throw new Error(`dashboard route ${routeKey(method, path)} has no entry in src/modules/dashboard/access.ts (routeAccess)`);
          }
        }
      });

      signedIn.addHook('onRequest', async (request: FastifyRequest, reply: FastifyReply) => {
        const session = await sessions.authenticate(request.cookies[sessionCookieName]);
        if (!session) {
          const next = request.method === 'GET' ? request.url : undefined;
          return reply.redirect(withQuery(`${dashboardPrefix}/sign-in`, { next }), 303);
        }
        request.dashboardSession = session;
        // The merchant requires two-factor sign-in and this user has none yet: enrolment first, nothing else.
        const enrolment = enrolmentRequired(request, session);
        if (enrolment) {
          return reply.redirect(enrolment, 303);
        }
        // The one check of the role, before the CSRF check and any handler: a refusal changes nothing.
        if (!mayUse(session.role, request.method, dashboardRoutePath(request))) {
          throw new AppError('FORBIDDEN', `Your role (${roleWords[session.role].name}) does not allow this. Ask an owner or administrator of ${session.merchant.name} to change your role if you need it.`);
        }
      });

      // Every form of a signed-in page carries a token bound to the session (docs/dashboard.md: CSRF on every form).
      signedIn.addHook('preHandler', async (request: FastifyRequest) => {
        if (request.method !== 'GET' && request.method !== 'HEAD') {
          const session = requireSession(request);
          if (!csrf.verify(request, sessionCsrfScope(session), field(request.body, '_csrf', 200))) {
            throw new AppError('FORBIDDEN', 'This form has expired or did not come from your dashboard, so nothing was changed.');
          }
        }
      });

      // Every form a signed-in user posts is recorded in the audit log once answered (./audit.ts).
      signedIn.addHook('onSend', createDashboardAuditHook(services.audit));

      signedIn.setErrorHandler(async (error: unknown, request: FastifyRequest, reply: FastifyReply) => {
        const appError = toAppError(error);
        if (isExpected(appError)) {
          request.log.info({ errorCode: appError.code }, appError.message);
        } else {
          request.log.error({ err: error, errorCode: appError.code }, 'unhandled error on a dashboard page');
        }
        // A client that asks for JSON (a script fetching a download) gets the API's error envelope.
        if (prefersJson(request)) {
          return sendError(request, reply, isExpected(appError) ? appError : new AppError('INTERNAL_ERROR', 'Something went wrong on our side.'));
        }
        for (const [name, value] of Object.entries(appError.headers)) {
          reply.header(name, value);
        }
        const message = isExpected(appError) ? appError.message : 'Something went wrong on our side.';
        const session = request.dashboardSession;
        const rawMode = (request.params as Record<string, unknown> | undefined)?.mode;
        const mode: Mode = isMode(rawMode) && (rawMode === 'sandbox' || session?.merchant.liveEnabled) ? rawMode : 'sandbox';
        const csrfToken = session ? csrf.issue(request, reply, sessionCsrfScope(session)) : '';
        return render(
          reply,
          (nonce) =>
            DashboardErrorPage({
              frame: session ? { nonce, mode, merchantName: session.merchant.name, email: session.email, liveEnabled: session.merchant.liveEnabled, csrfToken, role: session.role, sections: visibleSections(sections, session.role) } : null,
              nonce,
              status: appError.statusCode,
              message,
              requestId: request.id,
            }),
          { status: appError.statusCode },
        );
      });

      registerAccountRoutes(signedIn, tools, { sessions, secureCookies, limiter: limiters.passwordChange });
      registerSecurityScreens(signedIn, tools, { sessions, twoFactor, secureCookies, limiter: limiters.passwordChange });
      registerOverviewScreen(signedIn, tools, { presenter: presenters.overview, clock });
      registerCustomerScreens(signedIn, tools, presenters.customers, services.kyc.reviews, { erasure: services.erasure, customerExport: services.customerExport });
      // Before the detail screens: `/new` is a page of its own, not an id.
      registerCreatePageScreens(signedIn, tools, { payoutPages: services.payoutPages, paymentPages: services.paymentPages });
      registerPayoutPageScreens(signedIn, tools, { presenter: presenters.payoutPages, payoutPages: services.payoutPages });
      registerPaymentPageScreens(signedIn, tools, { presenter: presenters.paymentPages, paymentPages: services.paymentPages, disputes: presenters.disputes, refunds: services.refunds });
      registerSubscriptionScreens(signedIn, tools, { presenter: presenters.subscriptions, subscriptions: services.subscriptions, clock });
      registerFraudReportScreens(signedIn, tools, presenters.fraudReports);
      registerDisputeScreens(signedIn, tools, presenters.disputes);
      registerKeyScreens(signedIn, tools, { merchants: services.merchants, presenter: presenters.developers });
      registerWebhookScreens(signedIn, tools, { presenter: presenters.webhooks, webhooks: services.webhooks });
      registerInboxScreens(signedIn, tools, { presenter: presenters.inbox, smtpConfigured: config.smtpUrl !== undefined });
      registerAuditLogScreens(signedIn, tools, { audit: services.audit });
      // In a scope of its own: only the branding form takes multipart bodies (its logo file).
      await signedIn.register(async (uploads) => {
        registerBrandingScreens(uploads as unknown as Api, tools, { branding: services.branding });
      });
      registerTeamScreens(signedIn, tools, { team });
    });
  });
}
