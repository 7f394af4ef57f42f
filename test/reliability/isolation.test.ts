import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import fc from 'fast-check';
import type { LightMyRequestResponse } from 'fastify';
import { adminApiKey, basicAuth, createTestContext, json, type TestContext, type TestMerchant } from '../helpers/context.ts';
import { walletMethod } from '../helpers/payout-pages.ts';
import { cardBody, testCards } from '../helpers/payment-pages.ts';
import type { IdKind } from '../../src/crypto/ids.ts';
import { arbitraryFromSchema } from './fuzz-arbitraries.ts';
import { seedMerchantA, type Mode, type Owned } from './isolation-seed.ts';
import { fakeId, idKindOf, kindByParam, listOperations, resolveSchema, type DocumentedOperation, type OpenApiDocument, type Schema } from './openapi.ts';

/**
 * Isolation matrix (issue 9 item 4), generated from the OpenAPI document: merchant A owns real
 * objects of every kind in sandbox and in live; then every operation that takes an id (path, query
 * filter or body field) is called as merchant B with A's ids, and as A with sandbox ids in live mode
 * and live ids in sandbox. Every such call answers the 404 envelope (a filter may instead answer an
 * empty list), except the calls named in `refusedWhateverTheId`, which must give exactly the answer
 * listed there and the same answer for an id nobody has. No answer carries a byte of A's data (ids
 * and values; the id the caller sent itself does not count). Operations without ids are called as B
 * and must not show A's data. An operation the document gains later is classified automatically, or
 * the coverage test fails.
 */


interface Call {
  label: string;
  method: string;
  url: string;
  apiKey?: string;
  admin?: boolean;
  body?: unknown;
  /** A's ids the request itself carries (the caller knows them; an echo is not a leak). */
  sent: string[];
  /** 'notFound': must be the 404 envelope; 'notFoundOrEmpty': 404, or 200 listing nothing; 'noForeignData': any non-5xx answer without A's data. */
  expect: 'notFound' | 'notFoundOrEmpty' | 'noForeignData';
}

let context: TestContext;
let merchantA: TestMerchant;
let merchantB: TestMerchant;
let document: OpenApiDocument;
let operations: DocumentedOperation[];
let owned: Owned;
/** Every id and distinctive value of merchant A. */
let secretsOfA: Set<string>;

/** Bodies that pass validation for operations whose generated body would not (so the call reaches the lookup). */
const bodyTemplates: Record<string, unknown> = {
  'POST /v1/customers/{customerId}': { email: 'iso-b@example.com' },
  'POST /v1/test_helpers/payout_pages/{payoutPageId}/confirm': { payoutMethod: walletMethod },
  'POST /v1/test_helpers/payment_pages/{pageId}/pay': cardBody(testCards.visaCredit),
  'POST /v1/test_helpers/disputes/{disputeId}/close': { outcome: 'WON' },
};

/** The schema with optional properties left out (the smallest body most likely to validate). */
function requiredOnly(input: Schema | undefined): Schema | undefined {
  const schema = resolveSchema(document, input);
  if (!schema?.properties) {
    return schema;
  }
  const required = schema.required ?? [];
  return { ...schema, properties: Object.fromEntries(Object.entries(schema.properties).filter(([name]) => required.includes(name)).map(([name, value]) => [name, requiredOnly(value) ?? value])) };
}

/** A body for the operation (template, else drawn from its required fields with a fixed seed), with A's ids in every id field. */
function bodyFor(operation: DocumentedOperation, mode: Mode): { body: unknown; sent: string[] } {
  if (!operation.bodySchema) {
    return { body: undefined, sent: [] };
  }
  const pools = Object.fromEntries(Object.entries(owned).flatMap(([kind, ids]) => (ids?.[mode] ? [[kind, [ids[mode]]]] : []))) as Partial<Record<IdKind, string[]>>;
  const template = bodyTemplates[`${operation.method} ${operation.path}`];
  const [body] = template === undefined ? fc.sample(arbitraryFromSchema(document, requiredOnly(operation.bodySchema), pools), { seed: 7, numRuns: 1 }) : [template];
  const sent = Object.values(pools).flat();
  return { body: body ?? {}, sent };
}

/** Top-level body fields that take an id of a known kind. */
function bodyIdFields(operation: DocumentedOperation): string[] {
  const schema = resolveSchema(document, operation.bodySchema);
  return Object.keys(schema?.properties ?? {}).filter((name) => kindByParam[name] !== undefined);
}

function queryIdFilters(operation: DocumentedOperation): string[] {
  return operation.queryParameters.map((parameter) => parameter.name).filter((name) => kindByParam[name] !== undefined);
}

function pathWith(operation: DocumentedOperation, values: Record<string, string>): string {
  return operation.path.replace(/\{([^}]+)\}/g, (_match, name: string) => encodeURIComponent(values[name] ?? fakeId(operation.path, name, resolveSchema(document, operation.pathParameters.find((parameter) => parameter.name === name)?.schema as Schema))));
}

/** The calls of the matrix for one operation (empty when the operation takes no id and lists nothing). */
function callsFor(operation: DocumentedOperation): Call[] {
  const calls: Call[] = [];
  const pathKinds = operation.pathParameters.map((parameter) => ({ name: parameter.name, kind: idKindOf(operation.path, parameter.name) }));
  if (operation.access === 'merchant') {
    for (const mode of ['sandbox', 'live'] as const) {
      const values: Record<string, string> = {};
      let complete = pathKinds.length > 0;
      for (const { name, kind } of pathKinds) {
        const id = kind ? owned[kind]?.[mode] : undefined;
        if (id) {
          values[name] = id;
        } else {
          complete = false;
        }
      }
      if (complete) {
        const { body } = bodyFor(operation, mode);
        const url = pathWith(operation, values);
        const sent = Object.values(values);
        const livemode = mode === 'live';
        // B with A's ids: without livemode, and with the object's own mode.
        calls.push({ label: `B, A's ${mode} ids`, method: operation.method, url, apiKey: merchantB.apiKey, body, sent, expect: 'notFound' });
        calls.push({ label: `B, A's ${mode} ids, livemode=${livemode}`, method: operation.method, url: `${url}?livemode=${livemode}`, apiKey: merchantB.apiKey, body, sent, expect: 'notFound' });
        // A with its own ids in the other mode.
        calls.push({ label: `A, ${mode} ids with livemode=${!livemode}`, method: operation.method, url: `${url}?livemode=${!livemode}`, apiKey: merchantA.apiKey, body, sent, expect: 'notFound' });
      }
      for (const filter of queryIdFilters(operation)) {
        const kind = kindByParam[filter] as IdKind;
        const id = owned[kind]?.[mode];
        if (!id) {
          continue;
        }
        const base = pathWith(operation, Object.fromEntries(pathKinds.map(({ name, kind: pathKind }) => [name, (pathKind ? owned[pathKind]?.[mode] : undefined) ?? ''])));
        const query = (livemode: boolean | null) => new URLSearchParams({ [filter]: id, ...(livemode === null ? {} : { livemode: String(livemode) }) }).toString();
        calls.push({ label: `B, filter ${filter} = A's ${mode} id`, method: operation.method, url: `${base}?${query(null)}`, apiKey: merchantB.apiKey, sent: [id], expect: 'notFoundOrEmpty' });
        calls.push({ label: `A, filter ${filter} = ${mode} id with livemode=${mode !== 'live'}`, method: operation.method, url: `${base}?${query(mode !== 'live')}`, apiKey: merchantA.apiKey, sent: [id], expect: 'notFoundOrEmpty' });
      }
      if (pathKinds.length === 0 && bodyIdFields(operation).length > 0) {
        const { body, sent } = bodyFor(operation, mode);
        if (bodyIdFields(operation).every((field) => owned[kindByParam[field] as IdKind]?.[mode])) {
          calls.push({ label: `B, body ids of A's ${mode} objects`, method: operation.method, url: `${operation.path}?livemode=${mode === 'live'}`, apiKey: merchantB.apiKey, body, sent, expect: 'notFound' });
          calls.push({ label: `A, body ids of ${mode} objects with livemode=${mode !== 'live'}`, method: operation.method, url: `${operation.path}?livemode=${mode !== 'live'}`, apiKey: merchantA.apiKey, body, sent, expect: 'notFound' });
        }
      }
    }
    if (pathKinds.length === 0 && bodyIdFields(operation).length === 0 && queryIdFilters(operation).length === 0) {
      // No id to aim at A: B's own view (lists, balance, creates) must hold nothing of A's.
      for (const livemode of [null, false, true]) {
        const { body } = bodyFor(operation, 'sandbox');
        calls.push({ label: `B, livemode=${String(livemode)}`, method: operation.method, url: `${operation.path}${livemode === null ? '' : `?livemode=${livemode}`}`, apiKey: merchantB.apiKey, body, sent: [], expect: 'noForeignData' });
      }
    }
  }
  if (operation.access === 'admin') {
    // The operator sees every merchant by design; the boundary is a child id under the wrong parent.
    const children = pathKinds.filter(({ name }) => name !== 'merchantId');
    if (pathKinds.some(({ name }) => name === 'merchantId') && children.length > 0) {
      const values: Record<string, string> = { merchantId: merchantB.id };
      for (const { name, kind } of children) {
        values[name] = (kind ? owned[kind]?.live : undefined) ?? '';
      }
      const { body } = bodyFor(operation, 'live');
      calls.push({ label: `admin, A's child ids under B`, method: operation.method, url: pathWith(operation, values), admin: true, body: body ?? {}, sent: Object.values(values), expect: 'notFound' });
    }
  }
  return calls;
}

/** Why an operation needs no matrix call (the coverage test accepts only these). */
function exemption(operation: DocumentedOperation): string | null {
  if (operation.access === 'public') {
    return operation.pathParameters.length === 0 ? 'public, takes no id' : null;
  }
  const names = operation.pathParameters.map((parameter) => parameter.name);
  if (operation.access === 'admin' && !(names.includes('merchantId') && names.length > 1)) {
    return 'operator API: sees every merchant by design (not a tenant boundary)';
  }
  return null;
}

/**
 * The only `notFound` calls allowed to answer something else: sandbox-only test helpers refuse every
 * `livemode=true` request with 403 FORBIDDEN before they read the id (docs/API.md §15), so the answer is
 * the same for A's id, B's id or an id nobody has and says nothing about A's object. The matrix asserts
 * the exact answer below, that an unknown id gets it byte for byte (request id aside), and that each
 * entry is met exactly once; any other non-404 fails.
 */
interface Refusal {
  operation: string;
  case: string;
  status: number;
  errorCode: string;
  errorMessage: string;
  reason: string;
}

const payoutHelperLive = 'Test helpers work in sandbox only; pass livemode=false';
const paymentHelperLive = 'Test helpers work in sandbox only; use livemode=false';
const renewHelperLive = 'Test helpers work in sandbox only: pass livemode=false';
const refusedWhateverTheId: readonly Refusal[] = [
  { operation: 'POST /v1/test_helpers/payout_pages/{payoutPageId}/confirm', case: 'A, sandbox ids with livemode=true', status: 403, errorCode: 'FORBIDDEN', errorMessage: payoutHelperLive, reason: 'sandbox-only helper: any livemode=true → 403 before the lookup (payout-pages/routes.ts sandboxOnly)' },
  { operation: 'POST /v1/test_helpers/payout_pages/{payoutPageId}/confirm', case: "B, A's live ids, livemode=true", status: 403, errorCode: 'FORBIDDEN', errorMessage: payoutHelperLive, reason: 'sandbox-only helper: any livemode=true → 403 before the lookup (payout-pages/routes.ts sandboxOnly)' },
  { operation: 'POST /v1/test_helpers/payout_pages/{payoutPageId}/decline', case: 'A, sandbox ids with livemode=true', status: 403, errorCode: 'FORBIDDEN', errorMessage: payoutHelperLive, reason: 'sandbox-only helper: any livemode=true → 403 before the lookup (payout-pages/routes.ts sandboxOnly)' },
  { operation: 'POST /v1/test_helpers/payout_pages/{payoutPageId}/decline', case: "B, A's live ids, livemode=true", status: 403, errorCode: 'FORBIDDEN', errorMessage: payoutHelperLive, reason: 'sandbox-only helper: any livemode=true → 403 before the lookup (payout-pages/routes.ts sandboxOnly)' },
  { operation: 'POST /v1/test_helpers/payment_pages/{pageId}/pay', case: 'A, sandbox ids with livemode=true', status: 403, errorCode: 'FORBIDDEN', errorMessage: paymentHelperLive, reason: 'sandbox-only helper: any livemode=true → 403 before the lookup (payment-pages/routes.ts requireSandbox)' },
  { operation: 'POST /v1/test_helpers/payment_pages/{pageId}/pay', case: "B, A's live ids, livemode=true", status: 403, errorCode: 'FORBIDDEN', errorMessage: paymentHelperLive, reason: 'sandbox-only helper: any livemode=true → 403 before the lookup (payment-pages/routes.ts requireSandbox)' },
  { operation: 'POST /v1/test_helpers/subscriptions/{subscriptionId}/renew', case: 'A, sandbox ids with livemode=true', status: 403, errorCode: 'FORBIDDEN', errorMessage: renewHelperLive, reason: 'sandbox-only helper: any livemode=true → 403 before the lookup (subscriptions/service.ts renewNow)' },
  { operation: 'POST /v1/test_helpers/subscriptions/{subscriptionId}/renew', case: "B, A's live ids, livemode=true", status: 403, errorCode: 'FORBIDDEN', errorMessage: renewHelperLive, reason: 'sandbox-only helper: any livemode=true → 403 before the lookup (subscriptions/service.ts renewNow)' },
  { operation: 'POST /v1/test_helpers/disputes/{disputeId}/close', case: 'A, sandbox ids with livemode=true', status: 403, errorCode: 'FORBIDDEN', errorMessage: paymentHelperLive, reason: 'sandbox-only helper: any livemode=true → 403 before the lookup (disputes/routes.ts requireSandbox)' },
  { operation: 'POST /v1/test_helpers/disputes/{disputeId}/close', case: "B, A's live ids, livemode=true", status: 403, errorCode: 'FORBIDDEN', errorMessage: paymentHelperLive, reason: 'sandbox-only helper: any livemode=true → 403 before the lookup (disputes/routes.ts requireSandbox)' },
  { operation: 'POST /v1/test_helpers/fraud_reports', case: 'A, body ids of sandbox objects with livemode=true', status: 403, errorCode: 'FORBIDDEN', errorMessage: paymentHelperLive, reason: 'sandbox-only helper: any livemode=true → 403 before the lookup (fraud-reports/routes.ts requireSandbox)' },
  { operation: 'POST /v1/test_helpers/fraud_reports', case: "B, body ids of A's live objects", status: 403, errorCode: 'FORBIDDEN', errorMessage: paymentHelperLive, reason: 'sandbox-only helper: any livemode=true (the call sends livemode=true) → 403 before the lookup (fraud-reports/routes.ts requireSandbox)' },
];

/** Status and raw body with the request id (the one part two identical requests differ in) masked. */
function answerOf(response: LightMyRequestResponse): string {
  const requestId = response.headers['request-id'];
  return `${response.statusCode} ${typeof requestId === 'string' && requestId !== '' ? response.body.replaceAll(requestId, '<request-id>') : response.body}`;
}

function send(call: Call): Promise<LightMyRequestResponse> {
  const authorization = call.admin ? `Bearer ${adminApiKey}` : basicAuth(call.apiKey ?? '');
  const withBody = call.method !== 'GET' && call.method !== 'DELETE';
  return context.app.inject({
    method: call.method as 'GET',
    url: call.url,
    headers: { authorization, ...(withBody ? { 'content-type': 'application/json' } : {}) },
    ...(withBody ? { payload: JSON.stringify(call.body ?? {}) } : {}),
  });
}

/** The same call with each of A's ids replaced by a well-formed id nobody has. */
function withUnknownIds(call: Call): Call {
  const unknown = (text: string) => call.sent.reduce((result, id) => result.replaceAll(id, id.replace(/[0-9a-z]+$/, (tail) => '0'.repeat(tail.length))), text);
  return { ...call, url: unknown(call.url), body: call.body === undefined ? undefined : (JSON.parse(unknown(JSON.stringify(call.body))) as unknown) };
}

function foreignBytes(call: Call, body: string): string[] {
  return [...secretsOfA].filter((secret) => !call.sent.includes(secret) && body.includes(secret));
}

function isEmptyList(body: string): boolean {
  const parsed = JSON.parse(body) as Record<string, unknown>;
  const data = (parsed.data ?? parsed) as unknown;
  const lists = Array.isArray(data) ? [data] : Object.values(data as Record<string, unknown>).filter(Array.isArray);
  return lists.length > 0 && lists.every((list) => list.length === 0);
}

describe('isolation matrix: every operation with another merchant’s ids or the other mode’s ids', () => {
  before(async () => {
    context = await createTestContext();
    merchantA = await context.createMerchant({ live: true, name: 'Isolation A' });
    merchantB = await context.createMerchant({ live: true, name: 'Isolation B' });
    document = context.app.swagger() as unknown as OpenApiDocument;
    operations = listOperations(document);
    ({ owned, secrets: secretsOfA } = await seedMerchantA(context, merchantA));
  });
  after(async () => context.close());

  test('A owns objects of every kind the document’s ids name, in sandbox and in live', () => {
    for (const kind of ['customer', 'payoutPage', 'paymentPage', 'webhookEndpoint', 'subscription', 'payment', 'entitlement', 'invoice', 'event', 'webhookDelivery', 'apiKey', 'merchant', 'refund'] as const) {
      assert.ok(owned[kind]?.sandbox && owned[kind]?.live, `${kind} in both modes: ${JSON.stringify(owned[kind])}`);
    }
    // Merchants and API keys have no mode (a key works in both); every other kind is a different object per mode.
    for (const kind of ['customer', 'payoutPage', 'paymentPage', 'webhookEndpoint', 'subscription', 'payment', 'entitlement', 'invoice', 'event', 'webhookDelivery'] as const) {
      assert.notEqual(owned[kind]?.sandbox, owned[kind]?.live, kind);
    }
  });

  test('every operation of the document is in the matrix or has a stated exemption', () => {
    const uncovered = operations.filter((operation) => callsFor(operation).length === 0 && exemption(operation) === null).map((operation) => `${operation.method} ${operation.path}`);
    assert.deepEqual(uncovered, []);
    assert.ok(operations.length >= 40);
  });

  test('B with A’s ids, and A across modes → 404 envelope (filters: 404 or an empty list); no byte of A’s data', async () => {
    const problems: string[] = [];
    let calls = 0;
    let notFound = 0;
    const met: Refusal[] = [];
    for (const operation of operations) {
      for (const call of callsFor(operation)) {
        calls += 1;
        const response = await send(call);
        const where = `${operation.method} ${operation.path} [${call.label}] → ${response.statusCode}`;
        if (response.statusCode >= 500) {
          problems.push(`${where}: ${response.body.slice(0, 200)}`);
          continue;
        }
        if (call.expect === 'notFound') {
          const refusal = refusedWhateverTheId.find((entry) => entry.operation === `${operation.method} ${operation.path}` && entry.case === call.label);
          if (refusal) {
            met.push(refusal);
            const expected = `${refusal.status} ${JSON.stringify({ status: 'FAILED', errorCode: refusal.errorCode, errorMessage: refusal.errorMessage, requestId: '<request-id>' })}`;
            // The same call with an id nobody has must get the very same answer, byte for byte, or it reveals something about A's object.
            const control = await send(withUnknownIds(call));
            if (answerOf(response) !== expected || answerOf(control) !== expected) {
              problems.push(`${where}: allowed only as ${expected} (${refusal.reason}); got ${answerOf(response)}, an unknown id got ${answerOf(control)}`);
            }
          } else if (response.statusCode === 404 && json(response).errorCode === 'NOT_FOUND') {
            notFound += 1;
          } else {
            const control = await send(withUnknownIds(call));
            problems.push(`${where}: expected 404 NOT_FOUND (an unknown id answers ${control.statusCode} ${String(json(control).errorCode)}), got ${response.body.slice(0, 200)}`);
          }
        }
        if (call.expect === 'notFoundOrEmpty' && response.statusCode !== 404 && !(response.statusCode === 200 && isEmptyList(response.body))) {
          problems.push(`${where}: expected 404 or an empty list, got ${response.body.slice(0, 200)}`);
        }
        const leaked = foreignBytes(call, response.body);
        if (leaked.length > 0) {
          problems.push(`${where}: answer holds A's ${leaked.join(', ')}`);
        }
      }
    }
    process.stdout.write(`isolation matrix: ${calls} calls, ${notFound} answered 404, ${met.length} allowed refusals (sandbox-only helpers with livemode=true, same answer as for an unknown id), ${problems.length} problems, ${secretsOfA.size} values of A watched\n`);
    assert.deepEqual(problems, []);
    // Every allowed refusal was met exactly once: a stale or duplicated entry fails too.
    assert.deepEqual(
      met.map((entry) => `${entry.operation} [${entry.case}]`).sort(),
      refusedWhateverTheId.map((entry) => `${entry.operation} [${entry.case}]`).sort(),
    );
    assert.ok(calls > 100, `${calls} calls`);
    assert.ok(notFound > met.length * 3, `most calls reach the lookup (${notFound} 404s, ${met.length} refused earlier)`);
    assert.ok(secretsOfA.size > 20, `${secretsOfA.size} values of A watched`);
  });

  test('regression: paying one’s own live page through the sandbox helper with livemode=false → 404 (was 403 "this payment page is live")', async () => {
    const live = String(owned.paymentPage?.live);
    const response = await context.request({ method: 'POST', url: `/v1/test_helpers/payment_pages/${live}/pay?livemode=false`, apiKey: merchantA.apiKey, body: cardBody(testCards.visaCredit) });
    assert.equal(response.statusCode, 404, response.body);
    assert.equal(json(response).errorCode, 'NOT_FOUND');
  });

  test('hosted pages by unknown, foreign-kind or malformed ids → 404 page without A’s data', async () => {
    const ids = [fakeId('/payout_pages/{id}', 'payoutPageId', undefined), fakeId('/payment_pages/{id}', 'pageId', undefined), owned.customer?.sandbox ?? '', owned.paymentPage?.sandbox ?? '', 'x'.repeat(300)];
    const urls = [
      ...ids.filter((id) => !id.startsWith('payout_page_')).flatMap((id) => ['', '/code', '/kyc', '/review', '/return', '/verify'].map((suffix) => ['GET', `/payout-page/${id}${suffix}`])),
      ...ids.filter((id) => !id.startsWith('page_')).map((id) => ['GET', `/payment-page/${id}`]),
      ...ids.filter((id) => !id.startsWith('payout_page_')).flatMap((id) => ['/confirm', '/decline', '/code', '/verify', '/kyc'].map((suffix) => ['POST', `/payout-page/${id}${suffix}`])),
      ...ids.filter((id) => !id.startsWith('page_')).map((id) => ['POST', `/payment-page/${id}`]),
    ];
    for (const [method, url] of urls) {
      const response = await context.app.inject({ method: method as 'GET', url: String(url), ...(method === 'POST' ? { headers: { 'content-type': 'application/x-www-form-urlencoded' }, payload: '_csrf=x' } : {}) });
      assert.ok([403, 404].includes(response.statusCode), `${method} ${url} → ${response.statusCode}`);
      if (method === 'GET') {
        assert.equal(response.statusCode, 404, `${method} ${url}`);
      }
      const leaked = [...secretsOfA].filter((secret) => !String(url).includes(secret) && response.body.includes(secret));
      assert.deepEqual(leaked, [], `${method} ${url}`);
    }
  });
});
