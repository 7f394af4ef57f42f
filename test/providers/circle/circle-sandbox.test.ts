import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { Transaction } from '@circle-fin/developer-controlled-wallets';
import { createTestContext, type TestContext, type TestMerchant } from '../../helpers/context.ts';
import { assertLedgerInvariants, balanceOf } from '../../helpers/ledger.ts';
import { advanceAndDrain, attemptsOfPage, bankMethod, confirmPage, createPage, deadWalletMethod, fullKyc, getPage, walletMethod } from '../../helpers/payout-pages.ts';
import { startCircleReplica, type CircleReplica, type SignedNotification } from './replica.ts';

/**
 * CIRCLE_TEST_*: Circle's testnets back sandbox-mode USDC payouts instead of the built-in sandbox
 * rail (replica; the live keys stay unset). Bank payouts keep the sandbox rail.
 */
describe('sandbox USDC payouts through Circle’s testnets (CIRCLE_TEST_*, replica)', () => {
  let replica: CircleReplica;
  let context: TestContext;
  let merchant: TestMerchant;

  before(async () => {
    replica = await startCircleReplica();
    context = await createTestContext({
      env: {
        CIRCLE_TEST_API_KEY: replica.apiKey,
        CIRCLE_TEST_ENTITY_SECRET: replica.entitySecret,
        CIRCLE_TEST_WALLET_ID: replica.walletIds.join(','),
        CIRCLE_TEST_WEBHOOK_SUBSCRIPTION_ID: replica.subscriptionId,
        CIRCLE_TEST_BASE_URL: replica.baseUrl,
      },
    });
    merchant = await context.createMerchant({ name: 'Acme Testnet' });
  });
  after(async () => {
    await assertLedgerInvariants(context.database);
    await context.close();
    await replica.close();
  });

  const notify = (notification: SignedNotification, path = '/providers/circle-test/webhooks') => context.app.inject({ method: 'POST', url: path, payload: notification.body, headers: notification.headers });

  async function confirmedSandboxPage(amount: number, method: Record<string, unknown>, fundingCurrency: 'USD' | 'USDC' = 'USDC') {
    const page = await createPage(context, merchant, { amount, fundingCurrency });
    const confirmed = await confirmPage(context, merchant, page.id, { payoutMethod: method, kyc: fullKyc });
    assert.equal(confirmed.statusCode, 200, confirmed.body);
    await advanceAndDrain(context);
    return getPage(context, merchant, page.id);
  }

  function transferOf(attemptId: string): Transaction {
    const transfers = replica.transfers().filter((candidate) => candidate.refId === attemptId);
    assert.equal(transfers.length, 1, `one transfer on Circle's testnet for ${attemptId}`);
    const [transfer] = transfers;
    assert.ok(transfer);
    return transfer;
  }

  test('a sandbox USDC payout is one testnet transfer, paid with its hash and a testnet explorer link, notified on the sandbox endpoint', async () => {
    const before = await balanceOf(context.database, merchant.id, false, 'USDC');
    const page = await confirmedSandboxPage(1_500, walletMethod);
    assert.equal(page.status, 'PROCESSING');
    const [attempt] = await attemptsOfPage(context, page.id);
    assert.ok(attempt);
    assert.equal(attempt.rail, 'circle-test');
    const transfer = transferOf(attempt.id);
    assert.equal(transfer.blockchain, 'ETH-SEPOLIA');
    assert.deepEqual(transfer.amounts, ['15.00']);
    const completed = replica.advance(transfer.id, 'COMPLETE');
    assert.equal((await notify(completed, '/providers/circle/webhooks')).statusCode, 404, 'no live Circle endpoint: the live keys are unset');
    assert.equal((await notify(completed)).statusCode, 200);
    await context.drainJobs();
    const paid = await getPage(context, merchant, page.id);
    assert.equal(paid.status, 'PROCESSED');
    const details = paid.payoutDetails as { transactionHash: string; explorerUrl: string };
    assert.equal(details.transactionHash, replica.transfers().find((candidate) => candidate.id === transfer.id)?.txHash);
    assert.match(details.explorerUrl, /sepolia/, 'a testnet explorer');
    const after = await balanceOf(context.database, merchant.id, false, 'USDC');
    assert.equal(after.available, before.available - 1_500);
  });

  test('the built-in rule no longer decides: a wallet ending `dead` is sent to Circle’s testnet', async () => {
    const page = await confirmedSandboxPage(700, deadWalletMethod);
    const [attempt] = await attemptsOfPage(context, page.id);
    assert.ok(attempt);
    assert.equal(transferOf(attempt.id).destinationAddress, deadWalletMethod.address);
  });

  test('bank payouts keep the built-in sandbox rail', async () => {
    const transfers = replica.transfers().length;
    await confirmedSandboxPage(900, bankMethod, 'USD');
    const page = (await context.database.db.query.payoutPages.findMany({ where: (pages, { eq }) => eq(pages.merchantId, merchant.id), orderBy: (pages, { desc }) => [desc(pages.createdAt)], limit: 1 }))[0];
    assert.ok(page);
    const [attempt] = await attemptsOfPage(context, page.id);
    assert.equal(attempt?.rail, 'sandbox-rail');
    assert.equal(replica.transfers().length, transfers, 'nothing sent to Circle');
  });

  test('paysail providers check: Circle in the test environment reads the testnet wallets', async () => {
    const checks = context.platform.providerChecks.filter((check) => check.provider === 'circle');
    assert.deepEqual(
      checks.map((check) => check.environment),
      ['test'],
    );
    const [check] = checks;
    assert.ok(check);
    assert.match(await check.check(), new RegExp(replica.walletIds[0] ?? 'no wallet'));
  });
});
