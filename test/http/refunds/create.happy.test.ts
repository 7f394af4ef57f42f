import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { createTestContext, json, type TestContext, type TestMerchant } from '../../helpers/context.ts';
import { assertLedgerInvariants, balanceOf } from '../../helpers/ledger.ts';
import { createPage, payPage, testCards } from '../../helpers/payment-pages.ts';
import { createRefund, ledgerMovements, paidPage, postRefund, readPage, readRefund, refundEvents, refundsFailCard, settleSandboxRefunds, type RefundBody } from '../../helpers/refunds.ts';

describe('POST /v1/refunds (sandbox): refunds settle after SANDBOX_PAYOUT_DELAY_MS, through the ledger', () => {
  let context: TestContext;
  let merchant: TestMerchant;

  before(async () => {
    context = await createTestContext();
    merchant = await context.createMerchant();
  });
  after(async () => {
    await assertLedgerInvariants(context.database);
    await context.close();
  });

  test('a successful card payment credits the merchant in the page currency; EUR and GBP appear in GET /v1/balance once paid in', async () => {
    const before = await context.request({ method: 'GET', url: '/v1/balance?livemode=false', apiKey: merchant.apiKey });
    assert.deepEqual(
      json<{ data: Array<{ currency: string }> }>(before).data.map((balance) => balance.currency),
      ['USDC', 'USD'],
    );
    const usdBefore = await balanceOf(context.database, merchant.id, false, 'USD');
    const usd = await paidPage(context, merchant, { amount: 2500, currency: 'USD' });
    assert.equal(usd.refundedAmount, 0, 'refundedAmount is 0 until refunded');
    assert.equal((await balanceOf(context.database, merchant.id, false, 'USD')).available, usdBefore.available + 2500);
    assert.deepEqual(await ledgerMovements(context, usd.paymentId ?? ''), [{ kind: 'payment', currency: 'USD' }]);

    await paidPage(context, merchant, { amount: 4200, currency: 'EUR' });
    const declined = await createPage(context, merchant, { amount: 999, currency: 'GBP' });
    assert.equal((await payPage(context, merchant, declined.id, testCards.declined)).statusCode, 402);
    const after = await context.request({ method: 'GET', url: '/v1/balance?livemode=false', apiKey: merchant.apiKey });
    const balances = json<{ data: Array<{ currency: string; available: number; reserved: number; inFlight: number; livemode: boolean }> }>(after).data;
    assert.deepEqual(balances.map((balance) => balance.currency), ['USDC', 'USD', 'EUR'], 'a declined GBP payment opens nothing');
    assert.deepEqual(balances[2], { currency: 'EUR', livemode: false, available: 4200, reserved: 0, inFlight: 0 }, 'EUR opens at zero and holds the payment');
  });

  test('a full refund (amount omitted): PENDING, then SUCCEEDED after the delay with one PAYMENT_REFUNDED; the balance is debited at once', async () => {
    const page = await paidPage(context, merchant, { amount: 3000, currency: 'GBP' });
    const credited = await balanceOf(context.database, merchant.id, false, 'GBP');
    const refund = await createRefund(context, merchant, { paymentPageId: page.id, reason: 'REQUESTED_BY_CUSTOMER' });
    assert.match(refund.id, /^re_[0-9a-z]{36}$/);
    assert.deepEqual(
      { ...refund, id: '', createdAt: 0 },
      { id: '', paymentPageId: page.id, paymentId: page.paymentId, amount: 3000, currency: 'GBP', reason: 'REQUESTED_BY_CUSTOMER', status: 'PENDING', createdAt: 0, livemode: false },
    );
    assert.equal((await balanceOf(context.database, merchant.id, false, 'GBP')).available, credited.available - 3000, 'debited when the refund is made');
    assert.equal((await readPage(context, merchant, page.id)).refundedAmount, 3000);

    await context.drainJobs();
    assert.equal((await readRefund(context, merchant, refund.id)).status, 'PENDING', 'the sandbox takes SANDBOX_PAYOUT_DELAY_MS');
    assert.deepEqual(await refundEvents(context, refund.id), []);
    context.clock.advance(context.config.sandboxPayoutDelayMs);
    await context.drainJobs();

    const settled = await readRefund(context, merchant, refund.id);
    assert.equal(settled.status, 'SUCCEEDED');
    assert.equal(settled.failureReason, undefined);
    const events = await refundEvents(context, refund.id);
    assert.deepEqual(events, [{ type: 'PAYMENT_REFUNDED', data: { ...settled, clientReferenceId: page.clientReferenceId } }], 'data = the refund + clientReferenceId');
    const pageAfter = await readPage(context, merchant, page.id);
    assert.equal(pageAfter.status, 'PAID', 'the page stays PAID');
    assert.equal(pageAfter.refundedAmount, 3000);
    assert.equal((await balanceOf(context.database, merchant.id, false, 'GBP')).available, credited.available - 3000);
    assert.deepEqual(await ledgerMovements(context, refund.id), [{ kind: 'refund', currency: 'GBP' }]);
    await settleSandboxRefunds(context);
    assert.equal((await refundEvents(context, refund.id)).length, 1, 'settled once');
  });

  test('partial refunds add up; the default amount is what is left; reason is null when not given', async () => {
    const page = await paidPage(context, merchant, { amount: 1000 });
    const first = await createRefund(context, merchant, { paymentPageId: page.id, amount: 300 });
    assert.equal(first.reason, null);
    assert.equal((await readPage(context, merchant, page.id)).refundedAmount, 300);
    const second = await createRefund(context, merchant, { paymentPageId: page.id, amount: 200, reason: 'DUPLICATE' });
    const rest = await createRefund(context, merchant, { paymentPageId: page.id, reason: 'FRAUDULENT' });
    assert.equal(rest.amount, 500);
    assert.equal(second.reason, 'DUPLICATE');
    assert.equal((await readPage(context, merchant, page.id)).refundedAmount, 1000);
    await settleSandboxRefunds(context);
    for (const refund of [first, second, rest]) {
      assert.equal((await readRefund(context, merchant, refund.id)).status, 'SUCCEEDED');
    }
  });

  test('card 4000000000005126: the payment succeeds, its refund FAILS with REFUND_FAILED; the amount and the money come back', async () => {
    const page = await paidPage(context, merchant, { amount: 1500 }, refundsFailCard);
    assert.equal(page.status, 'PAID');
    const credited = await balanceOf(context.database, merchant.id, false, 'USD');
    const refund = await createRefund(context, merchant, { paymentPageId: page.id, amount: 1000 });
    assert.equal((await balanceOf(context.database, merchant.id, false, 'USD')).available, credited.available - 1000);
    await settleSandboxRefunds(context);
    const failed = await readRefund(context, merchant, refund.id);
    assert.equal(failed.status, 'FAILED');
    assert.equal(failed.failureReason, 'declined_by_issuer');
    assert.deepEqual(await refundEvents(context, refund.id), [{ type: 'REFUND_FAILED', data: { ...failed, clientReferenceId: page.clientReferenceId } }]);
    assert.equal((await readPage(context, merchant, page.id)).refundedAmount, 0, 'a failed refund gives its amount back');
    assert.equal((await balanceOf(context.database, merchant.id, false, 'USD')).available, credited.available, 'and its money');
    assert.deepEqual(await ledgerMovements(context, refund.id), [{ kind: 'refund', currency: 'USD' }, { kind: 'refund_failed', currency: 'USD' }]);
    // The whole payment may be asked for again (and fails again, as on Stripe).
    const again = await createRefund(context, merchant, { paymentPageId: page.id });
    assert.equal(again.amount, 1500);
  });

  test('Idempotency-Key: the same request replays the same refund, once; another body with the key → 409', async () => {
    const page = await paidPage(context, merchant, { amount: 800 });
    const headers = { 'idempotency-key': `refund-${page.id}` };
    const first = await postRefund(context, merchant, { paymentPageId: page.id, amount: 100 }, { headers });
    const replay = await postRefund(context, merchant, { paymentPageId: page.id, amount: 100 }, { headers });
    assert.equal(first.statusCode, 200, first.body);
    assert.equal(replay.statusCode, 200);
    assert.equal(replay.body, first.body);
    assert.equal((await readPage(context, merchant, page.id)).refundedAmount, 100, 'refunded once');
    const reused = await postRefund(context, merchant, { paymentPageId: page.id, amount: 200 }, { headers });
    assert.equal(reused.statusCode, 409);
    assert.equal(json(reused).errorCode, 'IDEMPOTENCY_KEY_REUSED');
    const list = await context.request({ method: 'GET', url: `/v1/refunds?paymentPageId=${page.id}`, apiKey: merchant.apiKey });
    assert.deepEqual(json<{ data: { refunds: RefundBody[] } }>(list).data.refunds.map((refund) => refund.id), [json<{ data: RefundBody }>(first).data.id]);
  });
});
