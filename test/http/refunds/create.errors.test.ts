import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { createTestContext, json, type TestContext, type TestMerchant } from '../../helpers/context.ts';
import { assertLedgerInvariants } from '../../helpers/ledger.ts';
import { createPage } from '../../helpers/payment-pages.ts';
import { createRefund, paidPage, postRefund, readPage, refundFootprint } from '../../helpers/refunds.ts';

type Failure = { status: string; errorCode: string; errorMessage: string };

describe('POST /v1/refunds: errors change nothing', () => {
  let context: TestContext;
  let merchant: TestMerchant;
  let other: TestMerchant;
  let paidPageId: string;

  before(async () => {
    context = await createTestContext();
    merchant = await context.createMerchant();
    other = await context.createMerchant();
    paidPageId = (await paidPage(context, merchant, { amount: 1000 })).id;
  });
  after(async () => {
    await assertLedgerInvariants(context.database);
    await context.close();
  });

  async function refused(body: unknown, status: number, errorCode: string, options: { as?: TestMerchant; query?: string } = {}): Promise<Failure> {
    const before = await refundFootprint(context);
    const response = await postRefund(context, options.as ?? merchant, body, { query: options.query ?? '?livemode=false' });
    assert.equal(response.statusCode, status, `${JSON.stringify(body)} → ${response.body}`);
    const failure = json<Failure>(response);
    assert.equal(failure.status, 'FAILED');
    assert.equal(failure.errorCode, errorCode);
    assert.deepEqual(await refundFootprint(context), before, `${JSON.stringify(body)}: nothing written`);
    return failure;
  }

  test('bad input for every field → 400 WRONG_PARAMETER naming it, nothing written', async () => {
    const cases: Array<[unknown, string]> = [
      [{}, 'paymentPageId'],
      [{ paymentPageId: '' }, 'paymentPageId'],
      [{ paymentPageId: 12 }, 'paymentPageId'],
      [{ paymentPageId: null }, 'paymentPageId'],
      [{ paymentPageId: 'p'.repeat(101) }, 'paymentPageId'],
      [{ paymentPageId: paidPageId, amount: 0 }, 'amount'],
      [{ paymentPageId: paidPageId, amount: -5 }, 'amount'],
      [{ paymentPageId: paidPageId, amount: 1.5 }, 'amount'],
      [{ paymentPageId: paidPageId, amount: '100' }, 'amount'],
      [{ paymentPageId: paidPageId, amount: null }, 'amount'],
      [{ paymentPageId: paidPageId, amount: 100_000_001 }, 'amount'],
      [{ paymentPageId: paidPageId, reason: 'BECAUSE' }, 'reason'],
      [{ paymentPageId: paidPageId, reason: 'requested_by_customer' }, 'reason'],
      [{ paymentPageId: paidPageId, reason: 3 }, 'reason'],
      [{ paymentPageId: paidPageId, reason: null }, 'reason'],
      [{ paymentPageId: paidPageId, currency: 'USD' }, 'currency'],
    ];
    for (const [body, field] of cases) {
      const failure = await refused(body, 400, 'WRONG_PARAMETER');
      assert.ok(failure.errorMessage.includes(field), `${JSON.stringify(body)}: the message names ${field}: ${failure.errorMessage}`);
    }
    await refused('not json', 400, 'WRONG_PARAMETER');
    await refused({ paymentPageId: paidPageId }, 400, 'WRONG_PARAMETER', { query: '?livemode=maybe' });
    assert.equal((await readPage(context, merchant, paidPageId)).refundedAmount, 0);
  });

  test('an amount above what is left → 400 WRONG_PARAMETER (amount); nothing left → the same', async () => {
    const failure = await refused({ paymentPageId: paidPageId, amount: 1001 }, 400, 'WRONG_PARAMETER');
    assert.match(failure.errorMessage, /^amount /);
    await createRefund(context, merchant, { paymentPageId: paidPageId, amount: 600 });
    const over = await refused({ paymentPageId: paidPageId, amount: 401 }, 400, 'WRONG_PARAMETER');
    assert.match(over.errorMessage, /amount must be at most what is left to refund.*400/);
    await createRefund(context, merchant, { paymentPageId: paidPageId, amount: 400 });
    const nothing = await refused({ paymentPageId: paidPageId }, 400, 'WRONG_PARAMETER');
    assert.match(nothing.errorMessage, /^amount /);
    assert.match(nothing.errorMessage, /nothing is left/);
    await refused({ paymentPageId: paidPageId, amount: 1 }, 400, 'WRONG_PARAMETER');
    assert.equal((await readPage(context, merchant, paidPageId)).refundedAmount, 1000);
  });

  test('a page not PAID (CREATED, EXPIRED) → 409 INVALID_STATE', async () => {
    const created = await createPage(context, merchant);
    const failure = await refused({ paymentPageId: created.id }, 409, 'INVALID_STATE');
    assert.match(failure.errorMessage, /CREATED/);
    const expired = await createPage(context, merchant);
    const expire = await context.request({ method: 'POST', url: `/v1/payment_pages/${expired.id}/expire?livemode=false`, apiKey: merchant.apiKey });
    assert.equal(expire.statusCode, 200, expire.body);
    await refused({ paymentPageId: expired.id, amount: 1 }, 409, 'INVALID_STATE');
  });

  test("an unknown page, another merchant's page or a page of the other mode → 404", async () => {
    await refused({ paymentPageId: 'page_00000000000000000000000000000000zz' }, 404, 'NOT_FOUND');
    await refused({ paymentPageId: 'not-an-id' }, 404, 'NOT_FOUND');
    const foreign = await paidPage(context, other, { amount: 500 });
    await refused({ paymentPageId: foreign.id }, 404, 'NOT_FOUND');
    await refused({ paymentPageId: foreign.id, amount: 1 }, 404, 'NOT_FOUND', { query: '' });
    await refused({ paymentPageId: foreign.id }, 403, 'LIVE_MODE_NOT_ENABLED', { as: other, query: '?livemode=true' });
    assert.equal((await readPage(context, other, foreign.id)).refundedAmount, 0);
  });

  test('without credentials → 401, nothing written', async () => {
    const before = await refundFootprint(context);
    const response = await context.request({ method: 'POST', url: '/v1/refunds?livemode=false', body: { paymentPageId: paidPageId } });
    assert.equal(response.statusCode, 401);
    assert.deepEqual(await refundFootprint(context), before);
  });
});
