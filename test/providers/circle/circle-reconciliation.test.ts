import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { createTestContext, json, type TestContext, type TestMerchant } from '../../helpers/context.ts';
import { assertLedgerInvariants } from '../../helpers/ledger.ts';
import { advanceAndDrain, attemptsOfPage, confirmedLivePage, errorCodeOf, getPage, walletMethod, type PayoutPageData } from '../../helpers/payout-pages.ts';
import { runInProcess } from '../../cli/helpers.ts';
import type { PayoutReconciliationReport } from '../../../src/modules/payout-pages/reconciliation.ts';
import { startCircleReplica, type CircleReplica } from './replica.ts';

describe('daily payout reconciliation and operator funding visibility (Circle replica)', () => {
  let replica: CircleReplica;
  let context: TestContext;
  let live: TestMerchant;

  before(async () => {
    replica = await startCircleReplica();
    context = await createTestContext({
      env: { CIRCLE_API_KEY: replica.apiKey, CIRCLE_ENTITY_SECRET: replica.entitySecret, CIRCLE_WALLET_ID: replica.walletIds.join(','), CIRCLE_BASE_URL: replica.baseUrl },
    });
    live = await context.createMerchant({ live: true, name: 'Acme Payroll' });
    assert.equal((await context.admin('POST', `/admin/v1/merchants/${live.id}/balance/credit`, { amount: 10_000_000, currency: 'USDC' })).statusCode, 200);
  });
  after(async () => {
    await assertLedgerInvariants(context.database);
    await context.close();
    await replica.close();
  });

  const today = () => context.clock.now().toISOString().slice(0, 10);
  const attemptsOf = (pageId: string) => attemptsOfPage(context, pageId);

  const processingPage = (amount: number): Promise<PayoutPageData> => confirmedLivePage(context, live, { amount, fundingCurrency: 'USDC', method: walletMethod });

  async function transferIdOf(pageId: string): Promise<string> {
    const [attempt] = await attemptsOf(pageId);
    const transfer = replica.transfers().find((candidate) => candidate.refId === attempt?.id);
    assert.ok(transfer);
    return transfer.id;
  }

  test('waiting for funding: listed in the admin API and counted in /metrics; gone once funded', async () => {
    replica.setUsdcBalance('10.00');
    const page = await processingPage(2_500);
    assert.match(String(page.statusReason), /fund the payout account/);
    const listed = await context.admin('GET', '/admin/v1/payouts/awaiting-funding');
    assert.equal(listed.statusCode, 200, listed.body);
    const waiting = json<{ data: Array<{ id: string; amount: number; currency: string; livemode: boolean; rail: string }> }>(listed).data;
    assert.deepEqual(
      waiting.map(({ id, amount, currency, livemode, rail }) => ({ id, amount, currency, livemode, rail })),
      [{ id: page.id, amount: 2_500, currency: 'USDC', livemode: true, rail: 'circle' }],
    );
    const metrics = await context.app.inject({ method: 'GET', url: '/metrics' });
    assert.match(metrics.body, /paysail_payouts_awaiting_funding\{currency="USDC",livemode="true"\} 1/);
    assert.match(metrics.body, /paysail_payouts_awaiting_funding_amount\{currency="USDC",livemode="true"\} 2500/);
    replica.setUsdcBalance('1000000.00');
    await advanceAndDrain(context, 31_000);
    assert.deepEqual(json<{ data: unknown[] }>(await context.admin('GET', '/admin/v1/payouts/awaiting-funding')).data, []);
    assert.doesNotMatch((await context.app.inject({ method: 'GET', url: '/metrics' })).body, /paysail_payouts_awaiting_funding\{currency="USDC",livemode="true"\} 1/);
  });

  test('the daily report matches our payouts with Circle’s records and lists each deliberate difference', async () => {
    const clean = await processingPage(1_000);
    const tampered = await processingPage(2_000);
    const cleanTransfer = await transferIdOf(clean.id);
    const tamperedTransfer = await transferIdOf(tampered.id);
    replica.advance(cleanTransfer, 'COMPLETE');
    await advanceAndDrain(context, 31_000); // the settle poll sees COMPLETE
    assert.equal((await getPage(context, live, clean.id)).status, 'PROCESSED');
    replica.setAmount(tamperedTransfer, '20.01');
    const foreign = replica.addForeignTransfer('5.00');

    const response = await context.admin('GET', `/admin/v1/reconciliation/payouts?date=${today()}`);
    assert.equal(response.statusCode, 200, response.body);
    const report = json<{ data: PayoutReconciliationReport }>(response).data;
    const circle = report.rails.find((rail) => rail.rail === 'circle');
    assert.ok(circle);
    assert.equal(circle.livemode, true);
    const kinds = circle.differences.map((difference) => `${difference.kind}:${difference.reference}`).sort();
    assert.deepEqual(kinds, [`AMOUNT_MISMATCH:${tamperedTransfer}`, `UNKNOWN_AT_PROVIDER:${foreign.id}`].sort());
    const mismatch = circle.differences.find((difference) => difference.kind === 'AMOUNT_MISMATCH');
    assert.deepEqual(mismatch?.ours, { amount: 2_000, status: 'SUBMITTED' });
    assert.deepEqual(mismatch?.provider, { amount: 2_001, status: 'PENDING' });
    assert.equal(mismatch?.payoutPageId, tampered.id);
    assert.ok(circle.matched >= 2, 'the clean payout (and the funded one) match');
    assert.equal(report.differences, 2);
    const sandbox = report.rails.find((rail) => rail.rail === 'sandbox-rail');
    assert.deepEqual(sandbox?.differences, []);

    const cli = await runInProcess(context.platform, ['payouts', 'reconcile', '--date', today()]);
    assert.equal(cli.code, 1, 'differences exit 1');
    assert.match(cli.stdout, /2 differences/);
    assert.match(cli.stdout, new RegExp(`AMOUNT_MISMATCH \\S+ \\(${tamperedTransfer}\\): ours 2000 SUBMITTED; rail 2001 PENDING`));
    assert.match(cli.stdout, new RegExp(`UNKNOWN_AT_PROVIDER - \\(${foreign.id}\\)`));
    const asJson = await runInProcess(context.platform, ['payouts', 'reconcile', '--date', today(), '--json']);
    assert.equal(JSON.parse(asJson.stdout).differences, 2);
  });

  test('bad dates are 400 WRONG_PARAMETER naming the field (API) and a usage error (CLI)', async () => {
    for (const date of ['2026-02-30', '20261101', 'yesterday', '2999-01-01']) {
      const response = await context.admin('GET', `/admin/v1/reconciliation/payouts?date=${date}`);
      assert.equal(response.statusCode, 400, date);
      assert.equal(errorCodeOf(response), 'WRONG_PARAMETER');
      assert.match(response.body, /date/);
    }
    assert.equal((await context.admin('GET', '/admin/v1/reconciliation/payouts')).statusCode, 400);
    const cli = await runInProcess(context.platform, ['payouts', 'reconcile', '--date', '2026-13-01']);
    assert.equal(cli.code, 2);
    assert.match(cli.stderr, /--date must be a calendar date/);
  });
});
