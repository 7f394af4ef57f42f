import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { json, type TestContext, type TestMerchant } from '../../helpers/context.ts';
import type { ErrorBody } from '../../helpers/assertions.ts';
import { closeDisputeSuite, disputeCalls, disputeCard, openDisputeSuite, type Dispute } from '../../helpers/disputes.ts';

describe('disputes in sandbox: scoping, modes and bad input', () => {
  let context: TestContext;
  let merchant: TestMerchant;
  let other: TestMerchant;

  before(async () => ({ context, merchant, other } = await openDisputeSuite()));
  after(async () => closeDisputeSuite(context));

  const { paid, disputed, close, ledgerMovements } = disputeCalls(() => ({ context, merchant }));

  test("another merchant's dispute, page or close is 404; live test helper 403; bad input 400 naming the field, nothing written", async () => {
    const page = await paid(disputeCard, 700);
    const dispute = await disputed(page);
    const foreignRead = await context.request({ method: 'GET', url: `/v1/disputes/${dispute.id}`, apiKey: other.apiKey });
    assert.equal(foreignRead.statusCode, 404, foreignRead.body);
    assert.equal(json<ErrorBody>(foreignRead).errorCode, 'NOT_FOUND');
    const foreignPage = await context.request({ method: 'GET', url: `/v1/disputes?paymentPageId=${page.id}`, apiKey: other.apiKey });
    assert.equal(foreignPage.statusCode, 404, foreignPage.body);
    const foreignClose = await close(dispute.id, 'WON', other);
    assert.equal(foreignClose.statusCode, 404, foreignClose.body);
    const wrongMode = await context.request({ method: 'GET', url: `/v1/disputes/${dispute.id}?livemode=true`, apiKey: merchant.apiKey });
    assert.equal(wrongMode.statusCode, 403, 'live is not enabled for this merchant');
    const unknown = await context.request({ method: 'GET', url: '/v1/disputes/dp_00000000000000000000000000000000000', apiKey: merchant.apiKey });
    assert.equal(unknown.statusCode, 404);

    const live = await close(dispute.id, 'WON', merchant, '?livemode=true');
    assert.equal(live.statusCode, 403, live.body);
    for (const [body, field] of [
      [{ outcome: 'MAYBE' }, 'outcome'],
      [{}, 'outcome'],
      [{ outcome: 'WON', extra: 1 }, 'extra'],
    ] as const) {
      const response = await context.request({ method: 'POST', url: `/v1/test_helpers/disputes/${dispute.id}/close?livemode=false`, apiKey: merchant.apiKey, body });
      assert.equal(response.statusCode, 400, response.body);
      assert.equal(json<ErrorBody>(response).errorCode, 'WRONG_PARAMETER');
      assert.match(json<ErrorBody>(response).errorMessage, new RegExp(field));
    }
    for (const [query, field] of [
      ['limit=0', 'limit'],
      ['limit=101', 'limit'],
      ['paymentPageId=', 'paymentPageId'],
      ['status=WON', 'status'],
    ] as const) {
      const response = await context.request({ method: 'GET', url: `/v1/disputes?${query}`, apiKey: merchant.apiKey });
      assert.equal(response.statusCode, 400, `${query}: ${response.body}`);
      assert.match(json<ErrorBody>(response).errorMessage, new RegExp(field));
    }
    const still = await context.request({ method: 'GET', url: `/v1/disputes/${dispute.id}`, apiKey: merchant.apiKey });
    assert.equal(json<{ data: Dispute }>(still).data.status, 'NEEDS_RESPONSE', 'nothing was written');
    assert.deepEqual((await ledgerMovements(dispute.id)).map((row) => row.kind), ['dispute']);
  });
});
