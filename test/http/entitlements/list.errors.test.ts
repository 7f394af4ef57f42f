import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { LightMyRequestResponse } from 'fastify';
import { createTestContext, json, type TestContext, type TestMerchant } from '../../helpers/context.ts';
import { listEntitlements, queryEntitlements, startSubscription, type SubscriptionBody } from '../../helpers/subscriptions.ts';

type Failure = { status: string; errorCode: string; errorMessage: string; requestId: string };

function assertWrongParameter(response: LightMyRequestResponse, field: string, label: string): Failure {
  assert.equal(response.statusCode, 400, `${label}: ${response.body}`);
  const body = json<Failure>(response);
  assert.deepEqual(Object.keys(body).sort(), ['errorCode', 'errorMessage', 'requestId', 'status'], `${label}: the standard error envelope`);
  assert.equal(body.status, 'FAILED');
  assert.equal(body.errorCode, 'WRONG_PARAMETER', label);
  assert.ok(body.errorMessage.startsWith(field), `${label}: "${body.errorMessage}" names ${field}`);
  assert.equal(body.requestId, response.headers['request-id']);
  return body;
}

describe('GET /v1/entitlements (errors)', () => {
  let context: TestContext;
  let merchant: TestMerchant;
  let other: TestMerchant;
  let subscription: SubscriptionBody;
  /** A real nextPageToken of `merchant` for { customerId, sort: asc, limit: 1 }. */
  let cursor: string;

  before(async () => {
    context = await createTestContext();
    merchant = await context.createMerchant();
    other = await context.createMerchant();
    subscription = (await startSubscription(context, merchant, { interval: 'DAY' })).subscription;
    context.clock.advance(24 * 60 * 60 * 1000);
    await context.drainJobs();
    const page = await listEntitlements(context, merchant, { customerId: subscription.customerId, limit: 1 });
    assert.equal(page.hasMore, true);
    cursor = page.nextPageToken ?? '';
  });
  after(async () => context.close());

  test('limit must be an integer from 1 to 100', async () => {
    for (const limit of ['0', '101', '-1', 'abc', '1.5', '', '1e3']) {
      assertWrongParameter(await queryEntitlements(context, merchant, { limit }), 'limit', `limit=${limit}`);
    }
    assert.equal((await queryEntitlements(context, merchant, { limit: 1 })).statusCode, 200);
    assert.equal((await queryEntitlements(context, merchant, { limit: 100 })).statusCode, 200);
  });

  test('sort must be asc or desc; isActive and livemode must be booleans; unknown parameters are refused', async () => {
    for (const sort of ['x', 'ASC', 'ascending', '']) {
      assertWrongParameter(await queryEntitlements(context, merchant, { sort }), 'sort', `sort=${sort}`);
    }
    for (const isActive of ['maybe', 'yes', '']) {
      assertWrongParameter(await queryEntitlements(context, merchant, { isActive }), 'isActive', `isActive=${isActive}`);
    }
    assertWrongParameter(await queryEntitlements(context, merchant, { livemode: 'sometimes' }), 'livemode', 'livemode=sometimes');
    assertWrongParameter(await queryEntitlements(context, merchant, { offset: 10 }), 'offset', 'offset=10');
    assertWrongParameter(await queryEntitlements(context, merchant, { subscriptionId: '' }), 'subscriptionId', 'empty subscriptionId');
  });

  test('a tampered, truncated or made-up cursor is refused', async () => {
    const [body, signature] = cursor.split('.');
    assert.ok(body && signature);
    const flip = (text: string, index: number) => text.slice(0, index) + (text[index] === 'A' ? 'B' : 'A') + text.slice(index + 1);
    const payload = JSON.parse(Buffer.from(body, 'base64url').toString('utf8')) as Record<string, unknown>;
    const rewritten = Buffer.from(JSON.stringify({ ...payload, t: Number(payload.t) - 1 })).toString('base64url');
    const candidates: Record<string, string> = {
      'edited position': `${rewritten}.${signature}`,
      'flipped body character': `${flip(body, 5)}.${signature}`,
      'flipped signature character': `${body}.${flip(signature, 10)}`,
      'last signature character': `${body}.${flip(signature, signature.length - 1)}`,
      truncated: cursor.slice(0, -4),
      'body only': body,
      'made up': 'eyJ2IjoxfQ.AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA',
      garbage: 'not-a-cursor',
      empty: '',
    };
    for (const [label, cursorToken] of Object.entries(candidates)) {
      assertWrongParameter(await queryEntitlements(context, merchant, { customerId: subscription.customerId, cursorToken }), 'cursorToken', label);
    }
    // The real one still works.
    const next = await listEntitlements(context, merchant, { customerId: subscription.customerId, cursorToken: cursor });
    assert.equal(next.entitlements.length, 1);
  });

  test('a cursor is valid only with the filters and sort it was issued for', async () => {
    const changed: Record<string, Record<string, string | number | boolean>> = {
      'filter dropped': {},
      'other customer': { customerId: 'cus_someoneelse' },
      'subscription added': { customerId: subscription.customerId, subscriptionId: subscription.id },
      'isActive added': { customerId: subscription.customerId, isActive: false },
      'sort changed': { customerId: subscription.customerId, sort: 'desc' },
      'livemode added': { customerId: subscription.customerId, livemode: false },
    };
    for (const [label, query] of Object.entries(changed)) {
      const failure = assertWrongParameter(await queryEntitlements(context, merchant, { ...query, cursorToken: cursor }), 'cursorToken', label);
      assert.match(failure.errorMessage, /different filters or sort/);
    }
    // Only the page size may change.
    assert.equal((await queryEntitlements(context, merchant, { customerId: subscription.customerId, limit: 50, cursorToken: cursor })).statusCode, 200);
    assert.equal((await queryEntitlements(context, merchant, { customerId: subscription.customerId, sort: 'asc', cursorToken: cursor })).statusCode, 200, 'the default sort spelled out');
  });

  test("another merchant's cursor is refused, even with the same filters", async () => {
    const theirs = (await startSubscription(context, other, { interval: 'DAY' })).subscription;
    context.clock.advance(24 * 60 * 60 * 1000);
    await context.drainJobs();
    const theirPage = await listEntitlements(context, other, { limit: 1 });
    assert.equal(theirPage.hasMore, true);
    const failure = assertWrongParameter(await queryEntitlements(context, merchant, { limit: 1, cursorToken: theirPage.nextPageToken ?? '' }), 'cursorToken', 'foreign cursor');
    assert.doesNotMatch(failure.errorMessage, new RegExp(other.id), 'the message reveals nothing about its owner');
    assert.ok(theirs.id);
    // And mine is refused to them.
    assertWrongParameter(await queryEntitlements(context, other, { customerId: subscription.customerId, cursorToken: cursor }), 'cursorToken', 'my cursor used by them');
  });

  test('the OpenAPI document shows the un-enveloped success body and the error envelope', async () => {
    const document = json<{ paths: Record<string, Record<string, { parameters: Array<{ name: string }>; responses: Record<string, { content: Record<string, { schema: Record<string, unknown> }> }> }>> }>(
      await context.request({ method: 'GET', url: '/openapi.json' }),
    );
    const operation = document.paths['/v1/entitlements']?.get;
    assert.ok(operation);
    assert.deepEqual(
      operation.parameters.map((parameter) => parameter.name).sort(),
      ['cursorToken', 'customerId', 'isActive', 'limit', 'livemode', 'sort', 'subscriptionId'],
    );
    const success = operation.responses['200']?.content['application/json']?.schema as { properties: Record<string, unknown> };
    assert.deepEqual(Object.keys(success.properties).sort(), ['entitlements', 'hasMore', 'nextPageToken']);
    assert.ok(operation.responses['400']);
    for (const path of ['/v1/subscriptions/{subscriptionId}', '/v1/subscriptions/{subscriptionId}/cancel', '/v1/test_helpers/subscriptions/{subscriptionId}/renew']) {
      assert.ok(document.paths[path], `${path} is documented`);
    }
  });

  test('authentication and mode errors use the standard error envelope too', async () => {
    const unauthenticated = await context.request({ method: 'GET', url: '/v1/entitlements' });
    assert.equal(unauthenticated.statusCode, 401);
    assert.equal(json<Failure>(unauthenticated).errorCode, 'UNAUTHORIZED');
    const live = await queryEntitlements(context, merchant, { livemode: true });
    assert.equal(live.statusCode, 403);
    assert.equal(json<Failure>(live).status, 'FAILED');
    assert.equal(json<Failure>(live).errorCode, 'LIVE_MODE_NOT_ENABLED');
  });
});
