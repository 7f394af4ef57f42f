import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { ErrorBody } from '../../helpers/assertions.ts';
import { json, type TestContext, type TestMerchant } from '../../helpers/context.ts';
import { entitlementsOf, renewNow, startSubscription, openSubscriptionSuite, utc } from '../../helpers/subscriptions.ts';


describe('subscriptions: scoped by merchant and mode', () => {
  let context: TestContext;
  let merchant: TestMerchant;

  before(async () => ({ context, merchant } = await openSubscriptionSuite('2024-01-31T10:00:00')));
  after(async () => context.close());

  test('reads and actions are scoped by merchant and mode; the test helper is sandbox only', async () => {
    context.clock.set(utc('2024-12-01T00:00:00'));
    const { subscription } = await startSubscription(context, merchant, { interval: 'MONTH' });
    const other = await context.createMerchant({ live: true });
    for (const [method, url] of [
      ['GET', `/v1/subscriptions/${subscription.id}`],
      ['POST', `/v1/subscriptions/${subscription.id}/cancel`],
      ['POST', `/v1/test_helpers/subscriptions/${subscription.id}/renew?livemode=false`],
      ['GET', '/v1/subscriptions/sub_unknown'],
    ] as const) {
      const response = await context.request({ method, url, apiKey: other.apiKey });
      assert.equal(response.statusCode, 404, `${method} ${url}`);
      const body = json<ErrorBody>(response);
      assert.equal(body.status, 'FAILED');
      assert.equal(body.errorCode, 'NOT_FOUND');
      assert.match(body.requestId, /^req_/);
    }
    const wrongMode = await context.request({ method: 'GET', url: `/v1/subscriptions/${subscription.id}?livemode=true`, apiKey: merchant.apiKey });
    assert.equal(wrongMode.statusCode, 403, 'live is not enabled for this merchant');
    assert.equal(json<ErrorBody>(wrongMode).errorCode, 'LIVE_MODE_NOT_ENABLED');
    const liveMerchantOwnSandbox = await context.createMerchant({ live: true });
    const mine = await startSubscription(context, liveMerchantOwnSandbox, { interval: 'MONTH' });
    const mismatch = await context.request({ method: 'GET', url: `/v1/subscriptions/${mine.subscription.id}?livemode=true`, apiKey: liveMerchantOwnSandbox.apiKey });
    assert.equal(mismatch.statusCode, 404, 'a sandbox subscription read with livemode=true');

    const live = await renewNow(context, liveMerchantOwnSandbox, mine.subscription.id, '?livemode=true');
    assert.equal(live.statusCode, 403);
    assert.equal(json<ErrorBody>(live).errorCode, 'FORBIDDEN');
    assert.equal((await entitlementsOf(context, liveMerchantOwnSandbox, mine.subscription.id)).length, 1, 'nothing renewed');

    const unknownField = await context.request({ method: 'POST', url: `/v1/subscriptions/${subscription.id}/cancel`, apiKey: merchant.apiKey, body: { at: 'now' } });
    assert.equal(unknownField.statusCode, 400);
    assert.equal(json<ErrorBody>(unknownField).errorCode, 'WRONG_PARAMETER');
  });
});
