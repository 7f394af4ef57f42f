import assert from 'node:assert/strict';
import { after, describe, test } from 'node:test';
import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormatsModule from 'ajv-formats';
import { Webhook } from 'standardwebhooks';
import { createTestContext, json } from '../helpers/context.ts';
import { createPage as createPaymentPage, payPage, testCards } from '../helpers/payment-pages.ts';
import { advanceAndDrain, confirmPage, createPage as createPayoutPage } from '../helpers/payout-pages.ts';
import { eventTypes } from '../../src/modules/events/record.ts';
import { exampleWebhookSecret } from '../../src/modules/webhooks/document.ts';
import { verifyWebhook } from '../../src/modules/webhooks/verify.ts';

/**
 * What the served OpenAPI document tells an integrator (issue 17): an operationId and tags on every
 * operation, the headers, every error status, the bounds the server enforces, and the `webhooks`
 * section with signed examples. The document is read as a client would: GET /openapi.json.
 */

const addFormats = addFormatsModule as unknown as (ajv: Ajv2020) => Ajv2020;

interface Response {
  description?: string;
  headers?: Record<string, { $ref?: string; required?: boolean }>;
  content?: Record<string, { schema?: { $ref?: string } }>;
}
interface Parameter {
  $ref?: string;
  name?: string;
  in?: string;
  required?: boolean;
  example?: string;
}
interface Operation {
  operationId?: string;
  tags?: string[];
  parameters?: Parameter[];
  requestBody?: { content?: Record<string, { schema?: Schema; example?: unknown }> };
  responses?: Record<string, Response>;
}
interface Schema {
  type?: string | string[];
  properties?: Record<string, Schema>;
  required?: string[];
  additionalProperties?: boolean | Schema;
  maxProperties?: number;
  propertyNames?: Schema;
  minimum?: number;
  maximum?: number;
  minLength?: number;
  maxLength?: number;
  pattern?: string;
  const?: unknown;
  enum?: unknown[];
}
interface Document {
  openapi: string;
  info: { license?: { name?: string; url?: string }; contact?: { name?: string; url?: string } };
  tags?: Array<{ name: string; description?: string }>;
  paths: Record<string, Record<string, Operation>>;
  webhooks?: Record<string, { post?: Operation }>;
  components: { schemas: Record<string, Schema>; parameters: Record<string, Parameter>; headers: Record<string, unknown> };
}

const context = await createTestContext();
after(async () => context.close());
const response = await context.app.inject({ method: 'GET', url: '/openapi.json' });
assert.equal(response.statusCode, 200);
const document = json<Document>(response);

const operations = Object.entries(document.paths).flatMap(([path, item]) =>
  Object.entries(item)
    .filter(([method]) => ['get', 'post', 'put', 'patch', 'delete'].includes(method))
    .map(([method, operation]) => ({ key: `${method.toUpperCase()} ${path}`, path, method, operation })),
);
const webhookOperations = Object.entries(document.webhooks ?? {}).map(([name, item]) => ({ key: `webhook ${name}`, name, operation: item.post ?? {} }));

function bodySchema(operation: Operation): Schema | undefined {
  return operation.requestBody?.content?.['application/json']?.schema;
}

describe('the OpenAPI document', () => {
  test('is OpenAPI 3.1 with a license and a contact', () => {
    assert.equal(document.openapi, '3.1.0');
    assert.deepEqual(document.info.license, { name: 'Apache-2.0', url: 'https://www.apache.org/licenses/LICENSE-2.0' });
    assert.match(String(document.info.contact?.url), /^http:\/\/paysail\.test\/docs$/, 'the contact is this server’s guides');
  });

  test('every operation (webhooks included) has an operationId `<resource>_<verb>`, unique', () => {
    const ids = [...operations, ...webhookOperations].map(({ key, operation }) => {
      assert.match(String(operation.operationId), /^[a-z][A-Za-z]*(_[a-z][A-Za-z]*)+$/, `${key}: ${operation.operationId}`);
      return String(operation.operationId);
    });
    assert.equal(new Set(ids).size, ids.length, `duplicates: ${ids.filter((id, index) => ids.indexOf(id) !== index).join(', ')}`);
    const byKey = new Map(operations.map(({ key, operation }) => [key, operation.operationId]));
    for (const [key, id] of [
      ['POST /v1/customers', 'customers_create'],
      ['GET /v1/customers/{customerId}', 'customers_retrieve'],
      ['GET /v1/customers', 'customers_list'],
      ['POST /v1/customers/{customerId}', 'customers_update'],
      ['POST /v1/payout_pages/{payoutPageId}/release', 'payoutPages_release'],
      ['DELETE /v1/webhook_endpoints/{endpointId}', 'webhookEndpoints_delete'],
      ['POST /v1/test_helpers/payout_pages/{payoutPageId}/confirm', 'testHelpers_payoutPages_confirm'],
      ['POST /admin/v1/merchants', 'adminMerchants_create'],
    ]) {
      assert.equal(byKey.get(key), id, key);
    }
  });

  test('every tag an operation uses is declared, with a description', () => {
    const declared = new Map((document.tags ?? []).map((tag) => [tag.name, tag.description ?? '']));
    for (const { key, operation } of [...operations, ...webhookOperations]) {
      assert.ok((operation.tags ?? []).length > 0, `${key} has a tag`);
      for (const tag of operation.tags ?? []) {
        assert.ok((declared.get(tag) ?? '').length > 20, `${key}: tag ${tag} is declared with a description`);
      }
    }
  });

  test('Idempotency-Key is a parameter of every POST of the merchant and admin APIs (both honour it), and of nothing else', () => {
    const parameter = document.components.parameters.IdempotencyKey;
    assert.equal(parameter?.name, 'Idempotency-Key');
    assert.equal(parameter?.in, 'header');
    assert.deepEqual((parameter as { schema?: Schema }).schema, { type: 'string', minLength: 1, maxLength: 255 });
    let posts = 0;
    for (const { key, path, method, operation } of operations) {
      const honoured = method === 'post' && (path.startsWith('/v1/') || path.startsWith('/admin/v1/'));
      posts += honoured ? 1 : 0;
      const declared = (operation.parameters ?? []).some((candidate) => candidate.$ref === '#/components/parameters/IdempotencyKey');
      assert.equal(declared, honoured, key);
    }
    assert.ok(posts > 30, `${posts} POSTs`);
  });

  test('every operation answers 503 (load shedding, shutdown) and, past the probes, 429; every error is the envelope', () => {
    for (const { key, path, operation } of operations) {
      const responses = operation.responses ?? {};
      assert.ok(responses['503'], `${key}: 503`);
      if (path.startsWith('/v1/') || path.startsWith('/admin/v1/')) {
        assert.ok(responses['429'], `${key}: 429`);
        assert.ok(responses['401'], `${key}: 401`);
      }
      for (const [status, answer] of Object.entries(responses)) {
        if (Number(status) >= 400) {
          assert.deepEqual(answer.content?.['application/json']?.schema, { $ref: '#/components/schemas/ErrorEnvelope' }, `${key} ${status}`);
          assert.match(String(answer.description), /^FAILED: [A-Z_]+/, `${key} ${status} names its error codes`);
        }
      }
    }
  });

  test('response headers: Request-Id everywhere, Retry-After on 429/503, WWW-Authenticate on 401, RateLimit on the merchant API, Idempotent-Replayed on POSTs', () => {
    for (const header of ['RequestId', 'RetryAfter', 'WWWAuthenticate', 'RateLimit', 'RateLimitPolicy', 'IdempotentReplayed']) {
      assert.ok(document.components.headers[header], `components.headers.${header}`);
    }
    for (const { key, path, method, operation } of operations) {
      for (const [status, answer] of Object.entries(operation.responses ?? {})) {
        const headers = answer.headers ?? {};
        const label = `${key} ${status}`;
        assert.equal(headers['Request-Id']?.$ref, '#/components/headers/RequestId', label);
        assert.equal(Boolean(headers['Retry-After']), status === '429' || status === '503', label);
        assert.equal(Boolean(headers['WWW-Authenticate']), status === '401', label);
        const rateLimited = path.startsWith('/v1/') && status !== '401' && status !== '503';
        assert.equal(Boolean(headers.RateLimit) && Boolean(headers['RateLimit-Policy']), rateLimited, label);
        if (status === '200') {
          assert.equal(Boolean(headers['Idempotent-Replayed']), method === 'post' && (path.startsWith('/v1/') || path.startsWith('/admin/v1/')), label);
        }
      }
    }
  });

  test('the bounds the server enforces are in the schemas (docs/API.md §6, §8)', () => {
    const payout = bodySchema(document.paths['/v1/payout_pages']?.post ?? {});
    assert.equal(payout?.properties?.amount?.minimum, 1);
    assert.equal(payout?.properties?.amount?.maximum, 100_000_000);
    assert.deepEqual([payout?.properties?.clientReferenceId?.minLength, payout?.properties?.clientReferenceId?.maxLength], [1, 255]);
    const payment = bodySchema(document.paths['/v1/payment_pages']?.post ?? {});
    assert.deepEqual([payment?.properties?.amount?.minimum, payment?.properties?.amount?.maximum], [1, 100_000_000]);
    for (const metadata of [payout?.properties?.metadata, payment?.properties?.metadata]) {
      assert.equal(metadata?.maxProperties, 20);
      assert.deepEqual([metadata?.propertyNames?.minLength, metadata?.propertyNames?.maxLength], [1, 40]);
      assert.deepEqual(metadata?.additionalProperties, { type: 'string', maxLength: 500 });
    }
    const customer = bodySchema(document.paths['/v1/customers']?.post ?? {});
    assert.deepEqual([customer?.properties?.referenceId?.minLength, customer?.properties?.referenceId?.maxLength], [1, 255]);
    assert.equal(customer?.properties?.email?.maxLength, 254);
    for (const name of ['firstName', 'middleName', 'lastName']) {
      assert.equal(customer?.properties?.[name]?.maxLength, 100, name);
    }
    assert.equal(customer?.properties?.phoneNumber?.maxLength, 20);
    assert.equal(customer?.properties?.dateOfBirth?.pattern, '^[0-9]{4}-[0-9]{2}-[0-9]{2}$');
    assert.equal(customer?.properties?.address?.properties?.country?.pattern, '^[A-Za-z]{2}$');
  });

  test('the bounds are the server’s own: a value just outside each is refused with the contract’s wording', async () => {
    const merchant = await context.createMerchant();
    const payout = { fundingCurrency: 'USDC', clientReferenceId: 'bounds', releaseMethod: 'MANUAL', customer: { referenceId: 'bounds', email: 'bounds@example.com' } };
    for (const amount of [0, 100_000_001]) {
      const answer = await context.request({ method: 'POST', url: '/v1/payout_pages?livemode=false', apiKey: merchant.apiKey, body: { ...payout, amount } });
      assert.equal(answer.statusCode, 400);
      assert.equal(json<{ errorMessage: string }>(answer).errorMessage, 'amount must be an integer between 1 and 100000000');
    }
    const customer = await context.request({ method: 'POST', url: '/v1/customers?livemode=false', apiKey: merchant.apiKey, body: { referenceId: 'b', signupAt: 1, dateOfBirth: '1990/01/01' } });
    assert.equal(json<{ errorMessage: string }>(customer).errorMessage, 'dateOfBirth must be a date in the form YYYY-MM-DD');
  });
});

describe('the webhooks section', () => {
  const ajv = new Ajv2020({ strict: false, allErrors: true });
  addFormats(ajv);
  ajv.addSchema({ $id: 'paysail-openapi.json', components: document.components });

  function compile(schema: unknown) {
    return ajv.compile(JSON.parse(JSON.stringify(schema).replaceAll('"#/components/', '"paysail-openapi.json#/components/')) as object);
  }

  test('one entry per event type the server emits (the closed list), and nothing else', () => {
    assert.deepEqual(Object.keys(document.webhooks ?? {}).sort(), [...eventTypes].sort());
  });

  test('each entry is the exact delivery: Standard Webhooks headers, and a body of its type with `signature`', () => {
    for (const { name, operation } of webhookOperations) {
      const headers = (operation.parameters ?? []).filter((parameter) => parameter.in === 'header' && parameter.required === true).map((parameter) => parameter.name);
      assert.deepEqual(headers, ['webhook-id', 'webhook-timestamp', 'webhook-signature'], name);
      const body = bodySchema(operation);
      assert.deepEqual(body?.required?.sort(), ['createdAt', 'data', 'id', 'livemode', 'signature', 'type'], name);
      assert.equal(body?.additionalProperties, false, name);
      assert.ok(body?.properties?.type?.const === name || body?.properties?.type?.enum?.[0] === name, `${name}: type is fixed`);
      assert.ok(operation.responses?.['200'] && operation.responses['410'], `${name}: what the receiver's answers mean`);
    }
  });

  test('FRAUD_REPORTED is exactly what interface.md shows', () => {
    const body = bodySchema(document.webhooks?.FRAUD_REPORTED?.post ?? {});
    assert.equal(body?.properties?.signature?.type, 'string');
    const data = body?.properties?.data;
    assert.deepEqual(Object.keys(data?.properties ?? {}).sort(), ['clientReferenceId', 'fraudReason', 'fraudReportId', 'pageId']);
    assert.deepEqual(data?.required?.sort(), ['clientReferenceId', 'fraudReason', 'fraudReportId', 'pageId']);
    assert.equal(data?.additionalProperties, false);
    for (const field of Object.values(data?.properties ?? {})) {
      assert.equal(field.type, 'string');
    }
  });

  test('each example matches its schema and carries signatures that verify (Standard Webhooks library and our verifier)', () => {
    const standard = new Webhook(exampleWebhookSecret);
    for (const { name, operation } of webhookOperations) {
      const media = operation.requestBody?.content?.['application/json'];
      const validate = compile(media?.schema);
      assert.ok(validate(media?.example), `${name}: ${JSON.stringify(validate.errors)}`);
      const headers = Object.fromEntries((operation.parameters ?? []).map((parameter) => [String(parameter.name), String(parameter.example)]));
      // The example body is sent as its canonical JSON (keys sorted, no whitespace): exactly JSON.stringify of the sorted example.
      const raw = JSON.stringify(media?.example);
      // The library's verify() refuses a timestamp older than 5 minutes (the example's is fixed), so its own signer checks the header.
      const timestamp = new Date(Number(headers['webhook-timestamp']) * 1000);
      assert.equal(headers['webhook-signature'], standard.sign(String(headers['webhook-id']), timestamp, raw), `${name}: webhook-signature`);
      const verified = verifyWebhook(headers, raw, exampleWebhookSecret, { toleranceSeconds: Number.MAX_SAFE_INTEGER });
      assert.equal(verified.type, name);
    }
  });

  test('real events of every type, recorded by real flows, match their entries (the body a delivery sends is the event plus `signature`)', async () => {
    const merchant = await context.createMerchant();
    const paid = await createPaymentPage(context, merchant);
    const payment = await payPage(context, merchant, paid.id, testCards.visaCredit);
    assert.equal(payment.statusCode, 200, payment.body);
    const paymentId = String(json<{ data: { paymentId?: string } }>(payment).data.paymentId);
    const reported = await context.request({ method: 'POST', url: '/v1/test_helpers/fraud_reports?livemode=false', apiKey: merchant.apiKey, body: { paymentId, fraudReason: 'Card reported stolen' } });
    assert.equal(reported.statusCode, 200, reported.body);
    const refund = await context.request({ method: 'POST', url: '/v1/refunds?livemode=false', apiKey: merchant.apiKey, body: { paymentPageId: paid.id, amount: 100 } });
    assert.equal(refund.statusCode, 200, refund.body);
    const expired = await createPaymentPage(context, merchant);
    assert.equal((await context.request({ method: 'POST', url: `/v1/payment_pages/${expired.id}/expire?livemode=false`, apiKey: merchant.apiKey })).statusCode, 200);
    const payout = await createPayoutPage(context, merchant);
    const confirmed = await confirmPage(context, merchant, payout.id, {
      payoutMethod: { type: 'BANK_TRANSFER', accountHolderName: 'Ada Lovelace', routingNumber: '021000021', accountNumber: '000123456789', accountType: 'CHECKING' },
    });
    assert.equal(confirmed.statusCode, 200, confirmed.body);
    // A disputed payment (opened, then closed by the test helper), a refund that fails, and a subscription's first period.
    const disputed = await createPaymentPage(context, merchant);
    assert.equal((await payPage(context, merchant, disputed.id, '4000000000000259')).statusCode, 200);
    const refundFails = await createPaymentPage(context, merchant);
    assert.equal((await payPage(context, merchant, refundFails.id, '4000000000005126')).statusCode, 200);
    const failing = await context.request({ method: 'POST', url: '/v1/refunds?livemode=false', apiKey: merchant.apiKey, body: { paymentPageId: refundFails.id } });
    assert.equal(failing.statusCode, 200, failing.body);
    const subscribed = await createPaymentPage(context, merchant, { subscription: { productId: 'pro', interval: 'MONTH', intervalCount: 1 } });
    assert.equal((await payPage(context, merchant, subscribed.id, testCards.visaCredit)).statusCode, 200);
    await advanceAndDrain(context, 10_000);
    await advanceAndDrain(context, 10_000);
    const disputes = json<{ data: { disputes: Array<{ id: string }> } }>(await context.request({ method: 'GET', url: '/v1/disputes?livemode=false', apiKey: merchant.apiKey })).data.disputes;
    assert.equal(disputes.length, 1);
    const closed = await context.request({ method: 'POST', url: `/v1/test_helpers/disputes/${disputes[0]?.id}/close?livemode=false`, apiKey: merchant.apiKey, body: { outcome: 'LOST' } });
    assert.equal(closed.statusCode, 200, closed.body);
    const leaving = await context.request({ method: 'POST', url: '/v1/customers?livemode=false', apiKey: merchant.apiKey, body: { referenceId: 'openapi-erased', signupAt: context.clock.now().getTime() } });
    const erased = await context.request({ method: 'POST', url: `/v1/customers/${json<{ data: { id: string } }>(leaving).data.id}/erase?livemode=false`, apiKey: merchant.apiKey });
    assert.equal(erased.statusCode, 200, erased.body);
    // A payout page locked by 10 wrong codes on the hosted page (its own code), then reissued.
    const locked = await createPayoutPage(context, merchant);
    const { access } = context.platform.services.payoutPages;
    for (let guess = 0; guess < 10; guess += 1) {
      if (guess % 5 === 0) {
        context.clock.advance(60 * 60_000);
        assert.equal(await access.sendCode(locked.id), 'sent');
      }
      await access.verify(locked.id, 'wrong!');
    }
    const reissued = await context.request({ method: 'POST', url: `/v1/payout_pages/${locked.id}/reissue?livemode=false`, apiKey: merchant.apiKey });
    assert.equal(reissued.statusCode, 200, reissued.body);
    await context.drainJobs();

    const listed = await context.request({ method: 'GET', url: '/v1/events?livemode=false&limit=100', apiKey: merchant.apiKey });
    const events = json<{ data: { events: Array<{ type: string; data: unknown }> } }>(listed).data.events;
    const seen = new Set<string>();
    for (const event of events) {
      const validate = compile(bodySchema(document.webhooks?.[event.type]?.post ?? {}));
      assert.ok(validate({ ...event, signature: 'c2lnbmF0dXJl' }), `${event.type}: ${JSON.stringify(validate.errors)} in ${JSON.stringify(event.data)}`);
      seen.add(event.type);
    }
    assert.deepEqual([...seen].sort(), [...eventTypes].sort(), 'an event of every type was recorded and checked');
  });
});
