import Fastify, { LogController, type FastifyBaseLogger, type FastifyInstance, type FastifyRequest } from 'fastify';
import swagger from '@fastify/swagger';
import swaggerUi from '@fastify/swagger-ui';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import type { Platform } from './platform.ts';
import { clientErrorHandler, frameworkErrorHandler, installErrorHandling, sendError } from './http/core.ts';
import { AppError } from './http/errors.ts';
import { validatorCompiler } from './http/validation.ts';
import { ErrorEnvelope, Envelope, succeeded } from './http/schemas.ts';
import { createAdminAuthHook, createMerchantAuthHook } from './http/auth.ts';
import { adminIdempotencyScope, createIdempotencyHooks } from './http/idempotency.ts';
import { createRateLimitHook } from './http/rate-limit.ts';
import { apiTags, completeOpenApiDocument } from './http/openapi.ts';
import { loadOperationExamples } from './http/openapi-examples.ts';
import { createAuthFailureGuard } from './http/auth-failures.ts';
import { createLoadShedder } from './http/load-shedding.ts';
import { pooledRandomBytes } from './crypto/random-pool.ts';
import type { Api } from './http/types.ts';
import { registerDashboard } from './modules/dashboard/index.ts';
import { registerCustomerRoutes } from './modules/customers/index.ts';
import { registerDataRightsRoutes } from './modules/data-rights/index.ts';
import { registerKycRoutes } from './modules/kyc/index.ts';
import { registerLedgerAdminRoutes, registerLedgerRoutes } from './modules/ledger/index.ts';
import { registerPayoutAdminRoutes, registerPayoutPageRoutes } from './modules/payout-pages/index.ts';
import { registerPayoutPageWebRoutes } from './web/pages/payout-page/routes.tsx';
import { registerEventRoutes } from './modules/events/index.ts';
import { registerWebhookRoutes, webhookEventsDocument } from './modules/webhooks/index.ts';
import { registerAdminEmailRoutes } from './modules/email/index.ts';
import { registerAdminRoutes } from './modules/admin/index.ts';
import { registerRetentionAdminRoutes } from './modules/retention/index.ts';
import { registerPaymentPageRoutes } from './modules/payment-pages/index.ts';
import { registerRefundRoutes } from './modules/refunds/index.ts';
import { registerFraudImportAdminRoutes, registerFraudReportRoutes } from './modules/fraud-reports/index.ts';
import { registerDisputeRoutes } from './modules/disputes/index.ts';
import { registerSubscriptionRoutes } from './modules/subscriptions/index.ts';
import { registerEntitlementRoutes } from './modules/entitlements/index.ts';
import { registerWebScope } from './web/scope.ts';
import { registerPaymentPageWebRoutes } from './web/pages/payment-page/routes.tsx';
import { apiReferencePath, registerDocsRoutes } from './modules/docs/index.ts';
import { setFrameHeaders, staticPageContentSecurityPolicy } from './web/security.ts';
import { registerProviderWebhookRoutes } from './modules/providers/index.ts';
import { cachedSerializerFactory } from './http/serializers.ts';
import { createAuditHook } from './http/audit.ts';
import { registerAuditAdminRoutes } from './modules/audit/index.ts';

export const apiVersion = '1.0.0';

/**
 * Builds the HTTP app: cross-cutting behaviour from http/, then each module's routes, listed
 * explicitly. Nothing here touches SQL.
 */
export async function buildApp(platform: Platform): Promise<Api> {
  const { config, services, metrics, database } = platform;
  let closing = false;

  const app = Fastify({
    loggerInstance: platform.logger as FastifyBaseLogger,
    genReqId: () => `req_${pooledRandomBytes(12).toString('base64url')}`,
    logController: new LogController({ requestIdLogLabel: 'requestId' }),
    bodyLimit: 1024 * 1024,
    return503OnClosing: false,
    routerOptions: { ignoreTrailingSlash: true },
    frameworkErrors: frameworkErrorHandler,
    clientErrorHandler,
    ajv: { customOptions: { removeAdditional: false } },
    schemaController: { compilersFactory: { buildSerializer: cachedSerializerFactory } },
    // request.ip is the client's address only behind a proxy the operator names (TRUST_PROXY).
    trustProxy: config.trustProxy.length > 0 ? [...config.trustProxy] : false,
  }).withTypeProvider<TypeBoxTypeProvider>();
  app.setValidatorCompiler(validatorCompiler);

  installErrorHandling(app);
  app.addSchema(ErrorEnvelope);

  app.addHook('onRequest', (request, reply, done) => {
    if (closing) {
      reply.header('Connection', 'close');
      // Answered here: the hook chain stops once the reply is sent.
      sendError(request, reply, new AppError('SERVICE_UNAVAILABLE', 'The server is shutting down; retry', {}, { 'Retry-After': '1' }));
      return;
    }
    done();
  });
  // Load shedding before any other work (auth, rate limit, body parsing): see http/load-shedding.ts.
  const shedder = createLoadShedder({ maxInFlight: config.maxInFlightRequests, maxEventLoopDelayMs: config.maxEventLoopDelayMs });
  app.addHook('onRequest', shedder.hook);
  app.addHook('onClose', shedder.close);
  app.addHook('onResponse', (request, reply, done) => {
    const route = request.routeOptions.url ?? 'unmatched';
    metrics.httpRequests.inc({ method: request.method, route, status: String(reply.statusCode) });
    metrics.httpDuration.observe({ method: request.method, route }, reply.elapsedTime / 1000);
    done();
  });
  app.addHook('onClose', async () => {
    closing = true;
  });

  await app.register(swagger, {
    openapi: {
      openapi: '3.1.0',
      info: {
        title: 'Paysail API',
        version: apiVersion,
        description:
          'Customers with identity verification, hosted payout and payment pages, fraud reports and entitlements. ' +
          'Every answer is an envelope (`status` SUCCEEDED with `data`, or FAILED with `errorCode`, `errorMessage`, `requestId`), ' +
          'except the entitlements query. Authenticate with HTTP Basic: the API key as user name, empty password. ' +
          '`livemode=false` selects sandbox; omitted means live. Every POST accepts `Idempotency-Key`. ' +
          'Every answer carries `Request-Id`; answers past authentication carry `RateLimit` and `RateLimit-Policy`. ' +
          'The `webhooks` section describes the signed requests Paysail sends to your endpoints.',
        license: { name: 'Apache-2.0', url: 'https://www.apache.org/licenses/LICENSE-2.0' },
        contact: { name: 'Paysail guides on this server', url: `${config.publicUrl}/docs` },
      },
      servers: [{ url: config.publicUrl }],
      tags: apiTags,
      components: {
        securitySchemes: {
          basicAuth: { type: 'http', scheme: 'basic', description: 'API key as the user name, empty password.' },
          adminBearer: { type: 'http', scheme: 'bearer', description: 'ADMIN_API_KEY (operators only).' },
        },
      },
      security: [{ basicAuth: [] }],
    },
    refResolver: { buildLocalReference: (json, _baseUri, _fragment, index) => (typeof json.$id === 'string' ? json.$id : `def-${index}`) },
    transformObject: (documentObject) =>
      'openapiObject' in documentObject ? completeOpenApiDocument(documentObject.openapiObject, { webhooks: webhookEventsDocument(), examples: loadOperationExamples() }) : documentObject.swaggerObject,
  });
  // The API reference is static files (no per-response nonce): the same policy with 'self' in place
  // of the nonce, and the same framing, sniffing and referrer headers as every other page, on every
  // response of the reference (its HTML, scripts, styles and document alike).
  await app.register(async (scope) => {
    scope.addHook('onRequest', (_request, reply, done) => {
      setFrameHeaders(reply);
      done();
    });
    await scope.register(swaggerUi, { routePrefix: apiReferencePath, uiConfig: { docExpansion: 'list', deepLinking: true }, staticCSP: staticPageContentSecurityPolicy });
  });

  app.get('/openapi.json', { schema: { hide: true } }, async () => app.swagger());

  app.get('/healthz', { schema: { tags: ['Operations'], operationId: 'operations_liveness', summary: 'Liveness', security: [], response: { 200: Envelope(Type.Object({ status: Type.Literal('ok') })) } } }, async () =>
    succeeded({ status: 'ok' as const }),
  );
  app.get('/readyz', { schema: { tags: ['Operations'], operationId: 'operations_readiness', summary: 'Readiness: the database answers', security: [], response: { 200: Envelope(Type.Object({ status: Type.Literal('ready') })) } } }, async () => {
    try {
      await database.ping();
    } catch {
      throw new AppError('SERVICE_UNAVAILABLE', 'The database is not reachable', {}, { 'Retry-After': '1' });
    }
    return succeeded({ status: 'ready' as const });
  });
  app.get('/metrics', { schema: { hide: true } }, async (_request, reply) => {
    reply.type(metrics.registry.contentType);
    return metrics.registry.metrics();
  });

  const merchantAuth = createMerchantAuthHook((rawKey) => services.merchants.authenticate(rawKey));
  const adminAuth = createAdminAuthHook(async () => platform.adminKey);
  const authFailures = createAuthFailureGuard({ perSecond: config.authFailuresPerSecond, burst: config.authFailureBurst, now: () => platform.clock.now().getTime() });
  /** Authentication behind the per-address failure limit: a refused address costs no lookup at all. */
  async function authenticateGuarded(request: FastifyRequest, authenticate: () => Promise<void>): Promise<void> {
    authFailures.check(request.ip);
    try {
      await authenticate();
    } catch (error) {
      throw error instanceof AppError && error.code === 'UNAUTHORIZED' ? await authFailures.recordFailure(request.ip, error) : error;
    }
  }
  const rateLimit = createRateLimitHook(platform.rateLimiter, { ratePerSecond: platform.config.merchantRateLimitPerSecond, burst: platform.config.merchantRateLimitBurst }, { ratePerSecond: config.rateLimitPerSecond, burst: config.rateLimitBurst });
  const idempotency = createIdempotencyHooks({ database, clock: platform.clock, keyRing: platform.keyRing });
  const adminIdempotency = createIdempotencyHooks({ database, clock: platform.clock, keyRing: platform.keyRing, scope: adminIdempotencyScope });

  await app.register(
    async (scope) => {
      const v1 = scope.withTypeProvider<TypeBoxTypeProvider>() as unknown as Api;
      // Authentication, then the per-key rate limit: one hook (one promise per request, not two).
      v1.addHook('onRequest', async (request, reply) => {
        await authenticateGuarded(request, () => merchantAuth(request, reply));
        await rateLimit(request, reply);
      });
      v1.addHook('preHandler', idempotency.preHandler);
      v1.addHook('onSend', idempotency.onSend);
      v1.addHook('onSend', createAuditHook(services.audit, (request) => (request.auth ? { actorType: 'api_key', actorId: request.auth.apiKeyId, merchantId: request.auth.merchant.id } : null)));
      registerCustomerRoutes(v1, services.customers);
      registerDataRightsRoutes(v1, services.erasure, services.customerExport);
      registerLedgerRoutes(v1, services.ledger);
      registerPayoutPageRoutes(v1, services.payoutPages);
      registerEventRoutes(v1, services.events);
      registerWebhookRoutes(v1, services.webhooks);
      registerPaymentPageRoutes(v1, services.paymentPages);
      registerRefundRoutes(v1, services.refunds);
      registerFraudReportRoutes(v1, services.fraudReports);
      registerDisputeRoutes(v1, services.disputes);
      registerSubscriptionRoutes(v1, services.subscriptions);
      registerEntitlementRoutes(v1, services.entitlements);
      registerKycRoutes(v1, services.kyc);
    },
    { prefix: '/v1' },
  );

  await app.register(
    async (scope) => {
      const admin = scope.withTypeProvider<TypeBoxTypeProvider>() as unknown as Api;
      admin.addHook('onRequest', async (request) => {
        await authenticateGuarded(request, () => adminAuth(request));
        request.isOperator = true;
      });
      admin.addHook('preHandler', adminIdempotency.preHandler);
      admin.addHook('onSend', adminIdempotency.onSend);
      admin.addHook('onSend', createAuditHook(services.audit, (request) => (request.isOperator ? { actorType: 'operator', actorId: 'operator', merchantId: null } : null)));
      registerAdminRoutes(admin, { merchants: services.merchants, customers: services.customers }, { webhookAllowPrivateTargets: config.webhookAllowPrivateTargets });
      registerLedgerAdminRoutes(admin, { ledger: services.ledger, requireMerchant: (merchantId) => services.merchants.getMerchant(merchantId) });
      registerPayoutAdminRoutes(admin, { payoutPages: services.payoutPages, now: () => platform.clock.now() });
      registerAdminEmailRoutes(admin, services.email);
      registerFraudImportAdminRoutes(admin, services.fraudReports);
      registerRetentionAdminRoutes(admin, services.retention);
      registerAuditAdminRoutes(admin, services.audit);
    },
    { prefix: '/admin/v1' },
  );

  // Signed inbound webhooks of the configured live providers: /providers/<provider>/webhooks.
  await registerProviderWebhookRoutes(app as unknown as FastifyInstance, platform.providerWebhooks);

  // Hosted checkout: /payment-page/<id> (HTML, CSRF, strict CSP).
  await registerWebScope(app, { csrfSecret: platform.keyRing.deriveKey('csrf'), secureCookies: config.publicUrl.startsWith('https:') }, (web, tools) =>
    registerPaymentPageWebRoutes(web, tools, {
      paymentPages: services.paymentPages,
      merchants: services.merchants,
      clock: platform.clock,
      stripe: {
        live: config.stripe ? { publishableKey: config.stripe.publishableKey, jsUrl: config.stripe.jsUrl } : null,
        // Sandbox pages backed by a Stripe test account (STRIPE_TEST_*) mount the Payment Element with its key.
        test: config.stripeTest ? { publishableKey: config.stripeTest.publishableKey, jsUrl: config.stripeTest.jsUrl } : null,
      },
    }),
  );

  // Hosted payout page: /payout-page/<id> (HTML, e-mailed access code, CSRF, strict CSP).
  await registerWebScope(app, { csrfSecret: platform.keyRing.deriveKey('csrf'), secureCookies: config.publicUrl.startsWith('https:') }, (web, tools) =>
    registerPayoutPageWebRoutes(web, tools, { payoutPages: services.payoutPages, kyc: services.kyc, publicUrl: config.publicUrl, clock: platform.clock, secureCookies: config.publicUrl.startsWith('https:') }),
  );

  await registerDashboard(app, platform);
  await registerDocsRoutes(app, platform);

  return app;
}
