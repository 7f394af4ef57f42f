import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { json, type TestContext, type TestMerchant } from '../../helpers/context.ts';
import { openRefundListSuite, readRefund, type RefundBody } from '../../helpers/refunds.ts';

describe('GET /v1/refunds/:id: one merchant, one mode', () => {
  let context: TestContext;
  let merchant: TestMerchant;
  let other: TestMerchant;
  let madeOnA: RefundBody[] = [];

  before(async () => ({ context, merchant, other, madeOnA } = await openRefundListSuite()));
  after(async () => context.close());

  test('read by id; another merchant, the other mode or an unknown id → 404', async () => {
    const first = madeOnA[0];
    assert.ok(first);
    assert.deepEqual(await readRefund(context, merchant, first.id), first);
    const scoped = await context.request({ method: 'GET', url: `/v1/refunds/${first.id}?livemode=false`, apiKey: merchant.apiKey });
    assert.equal(scoped.statusCode, 200);
    for (const [url, as] of [[`/v1/refunds/${first.id}`, other], [`/v1/refunds/re_00000000000000000000000000000000zz`, merchant]] as const) {
      const missing = await context.request({ method: 'GET', url, apiKey: as.apiKey });
      assert.equal(missing.statusCode, 404, url);
      assert.equal(json(missing).errorCode, 'NOT_FOUND');
    }
    const live = await context.createMerchant({ live: true });
    const otherMode = await context.request({ method: 'GET', url: `/v1/refunds/${first.id}?livemode=true`, apiKey: merchant.apiKey });
    assert.equal(otherMode.statusCode, 403, 'a sandbox-only merchant cannot ask for live');
    assert.equal((await context.request({ method: 'GET', url: `/v1/refunds/${first.id}?livemode=false`, apiKey: live.apiKey })).statusCode, 404);
  });
});
