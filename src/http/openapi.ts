import { errorCodes, errorStatus } from './errors.ts';
import { addOperationExamples, type OperationExample } from './openapi-examples.ts';

/**
 * What the served OpenAPI document adds to what @fastify/swagger makes of the route schemas: the
 * parts every operation shares (headers, the errors every route can answer, optional bodies), added
 * here once instead of on each route, so a route added later is described like the others.
 */

type JsonObject = Record<string, unknown>;

interface ResponseLike {
  description?: string;
  headers?: Record<string, unknown>;
  content?: Record<string, { schema?: unknown }>;
}

interface OperationLike {
  parameters?: Array<{ name?: string; in?: string; $ref?: string }>;
  requestBody?: { required?: boolean; content?: Record<string, { schema?: { nullable?: boolean; anyOf?: Array<{ type?: unknown }>; type?: unknown } }> };
  responses?: Record<string, ResponseLike>;
  security?: unknown[];
}

export interface OpenApiDocumentLike {
  paths?: Record<string, Record<string, OperationLike>>;
  components?: { headers?: JsonObject; parameters?: JsonObject; schemas?: JsonObject; [key: string]: unknown };
  [key: string]: unknown;
}

const httpMethods = ['get', 'put', 'post', 'delete', 'patch'];
const errorEnvelopeRef = { $ref: '#/components/schemas/ErrorEnvelope' };

/** The reusable parameter and headers the document's operations point to. */
export const sharedComponents = {
  parameters: {
    IdempotencyKey: {
      name: 'Idempotency-Key',
      in: 'header',
      required: false,
      description:
        'Makes the POST safe to retry: for 24 h per merchant, mode and key, the same request replays the first answer (below 500) byte for byte with ' +
        '`Idempotent-Replayed: true`; another request with the key → 409 IDEMPOTENCY_KEY_REUSED; while the first still runs → 409 IDEMPOTENCY_KEY_IN_USE.',
      schema: { type: 'string', minLength: 1, maxLength: 255 },
      example: 'order-42-payout',
    },
  },
  headers: {
    RequestId: { description: 'This request’s id (`req_…`), also `requestId` in an error body; quote it to support.', schema: { type: 'string', pattern: '^req_' } },
    IdempotentReplayed: { description: '`true` when this answer is the stored answer of an earlier request with the same `Idempotency-Key`.', schema: { type: 'string', enum: ['true'] } },
    RetryAfter: { description: 'Whole seconds to wait before retrying.', schema: { type: 'integer', minimum: 1 } },
    WWWAuthenticate: { description: 'The scheme to authenticate with: `Basic realm="Paysail API"` (API key), `Bearer` on the admin API.', schema: { type: 'string' } },
    RateLimitPolicy: {
      description:
        'The rate limits this request counted against (draft-ietf-httpapi-ratelimit-headers): `"key";q=<burst>;w=<seconds to refill>` for the API key, ' +
        'then `"merchant";…` for all the merchant’s keys together. Absent when the rate-limit store did not answer.',
      schema: { type: 'string' },
      example: '"key";q=200;w=2, "merchant";q=200;w=2',
    },
    RateLimit: {
      description: 'What is left of each limit after this request: `"key";r=<requests left>;t=<seconds until full>`, then `"merchant";…`.',
      schema: { type: 'string' },
      example: '"key";r=199;t=1, "merchant";r=187;t=1',
    },
  },
};

/** The document's tags, in the order the reference shows them, each with what it groups. */
export const apiTags = [
  { name: 'Customers', description: 'The people you pay or charge: identity data (PII returned as JWE under your PII key), KYC status, and identity verifications waiting for your review.' },
  { name: 'Payout pages', description: 'Hosted pages where a customer chooses how to be paid; the amount is reserved on your balance until the payout is paid, cancelled or expires.' },
  { name: 'Payment pages', description: 'Hosted card checkout pages; a paid page credits your balance.' },
  { name: 'Refunds', description: 'Refunds of paid payment pages, settled by the card processor in the background.' },
  { name: 'Disputes', description: 'Chargebacks reported by the card processor, and the balance movements they cause.' },
  { name: 'Fraud reports', description: 'Issuer and network fraud reports on card payments (FRAUD_REPORTED webhooks once enabled for you).' },
  { name: 'Subscriptions', description: 'Recurring payments started from payment pages, renewed off-session.' },
  { name: 'Entitlements', description: 'What a paid subscription period grants; answered without the envelope.' },
  { name: 'Balance', description: 'Your balances per funding currency, from the double-entry ledger.' },
  { name: 'Events', description: 'Everything that happened, kept 30 days; each event is also sent to your webhook endpoints.' },
  { name: 'Webhooks', description: 'Endpoints that receive events, their signing secrets, and every delivery attempt.' },
  { name: 'Test helpers', description: 'Sandbox only (`livemode=false`): do what a customer, an issuer or the card processor would.' },
  { name: 'Admin', description: 'The operator’s API (`/admin/v1`, bearer ADMIN_API_KEY): merchants, API keys, PII keys, live balances, reconciliation.' },
  { name: 'Operations', description: 'Liveness and readiness probes for load balancers and orchestrators; no authentication.' },
  { name: 'Webhook events', description: 'What Paysail POSTs to your webhook endpoints: one request per event and endpoint, signed twice (header and body).' },
];

/** Error codes by their status, for the description of each error response. */
function codesOf(status: number): string[] {
  return errorCodes.filter((code) => errorStatus[code] === status);
}

function headerRef(name: keyof typeof sharedComponents.headers): { $ref: string } {
  return { $ref: `#/components/headers/${name}` };
}

/** Whether a body schema admits `null` (OpenAPI 3.0 `nullable`, or a 3.1 `null` type / branch). */
function admitsNull(schema: { nullable?: boolean; anyOf?: Array<{ type?: unknown }>; type?: unknown } | undefined): boolean {
  if (!schema) {
    return false;
  }
  const isNull = (type: unknown) => type === 'null' || (Array.isArray(type) && type.includes('null'));
  return schema.nullable === true || isNull(schema.type) || (schema.anyOf ?? []).some((branch) => isNull(branch.type));
}

/**
 * @fastify/swagger marks every request body required. A bodyless operation (expire, release,
 * cancel, revoke, …) declares its body as "`{}` or nothing" (a union with null), and the server
 * accepts no body, `{}`, or an empty body with any content type: such a body is optional, and the
 * document says so.
 */
export function markOptionalRequestBodies<T>(document: T): T {
  for (const { operation } of operationsOf(document as OpenApiDocumentLike)) {
    const body = operation.requestBody;
    if (body && admitsNull(body.content?.['application/json']?.schema)) {
      body.required = false;
    }
  }
  return document;
}

function operationsOf(document: OpenApiDocumentLike): Array<{ path: string; method: string; operation: OperationLike }> {
  const found: Array<{ path: string; method: string; operation: OperationLike }> = [];
  for (const [path, item] of Object.entries(document.paths ?? {})) {
    for (const method of httpMethods) {
      const operation = item[method];
      if (operation) {
        found.push({ path, method, operation });
      }
    }
  }
  return found;
}

/** Which answers carry which headers: who authenticated, which buckets were taken from, what a replay adds. */
function describeResponses(path: string, method: string, operation: OperationLike): void {
  const merchantApi = path.startsWith('/v1/');
  const idempotent = method === 'post' && (merchantApi || path.startsWith('/admin/v1/'));
  const responses = (operation.responses ??= {});
  // Load shedding and shutdown answer any route 503 before anything else runs, and a request that
  // is not valid HTTP gets a 400 envelope whatever its URL (http/core.ts, clientErrorHandler).
  responses['400'] ??= { description: 'FAILED: WRONG_PARAMETER (the request is not valid HTTP: a malformed request line or header, headers too large).', content: { 'application/json': { schema: errorEnvelopeRef } } };
  responses['503'] ??= { description: '', content: { 'application/json': { schema: errorEnvelopeRef } } };
  for (const [statusText, response] of Object.entries(responses)) {
    const status = Number(statusText);
    if (status >= 400 && (response.description === undefined || response.description === '' || response.description === 'Default Response' || response.description.startsWith('Every failure'))) {
      response.description = `FAILED: ${codesOf(status).join(', ')}${status === 503 ? ' (at capacity, shutting down, or the database unreachable)' : ''}.`;
    } else if (response.description === 'Default Response') {
      response.description = 'SUCCEEDED.';
    }
    const headers: Record<string, unknown> = { 'Request-Id': headerRef('RequestId') };
    if (merchantApi && status !== 401 && status !== 503) {
      headers['RateLimit-Policy'] = headerRef('RateLimitPolicy');
      headers.RateLimit = headerRef('RateLimit');
    }
    if (idempotent && status < 500 && status !== 401 && status !== 429) {
      headers['Idempotent-Replayed'] = headerRef('IdempotentReplayed');
    }
    if (status === 429 || status === 503) {
      headers['Retry-After'] = headerRef('RetryAfter');
    }
    if (status === 401) {
      headers['WWW-Authenticate'] = headerRef('WWWAuthenticate');
    }
    response.headers = { ...headers, ...response.headers };
  }
  if (idempotent) {
    const parameters = (operation.parameters ??= []);
    if (!parameters.some((parameter) => parameter.$ref === '#/components/parameters/IdempotencyKey')) {
      parameters.push({ $ref: '#/components/parameters/IdempotencyKey' });
    }
  }
}

/** The shared parts, on every operation of the document (mutates and returns it). */
export function completeOpenApiDocument<T>(input: T, extra: { webhooks?: JsonObject; examples?: Record<string, OperationExample> } = {}): T {
  const document = markOptionalRequestBodies(input) as OpenApiDocumentLike;
  const components = (document.components ??= {});
  components.parameters = { ...components.parameters, ...sharedComponents.parameters };
  components.headers = { ...components.headers, ...sharedComponents.headers };
  for (const { path, method, operation } of operationsOf(document)) {
    describeResponses(path, method, operation);
  }
  if (extra.examples) {
    addOperationExamples(document.paths as Parameters<typeof addOperationExamples>[0], extra.examples);
  }
  if (extra.webhooks) {
    document.webhooks = extra.webhooks;
  }
  return input;
}
