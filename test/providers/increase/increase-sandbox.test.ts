import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type Increase from 'increase';
import { createTestContext, type TestContext, type TestMerchant } from '../../helpers/context.ts';
import { assertLedgerInvariants, balanceOf } from '../../helpers/ledger.ts';
import { advanceAndDrain, attemptsOfPage, bankMethod, confirmPage, createPage, fullKyc, getPage, rejectedBankMethod, walletMethod } from '../../helpers/payout-pages.ts';
import { startIncreaseReplica, type IncreaseReplica, type SignedWebhook } from './replica.ts';

/**
 * INCREASE_SANDBOX_*: Increase's sandbox environment backs sandbox-mode bank payouts instead of the
 * built-in sandbox rail (replica; the live keys stay unset). Wallet payouts keep the sandbox rail.
 */
describe('sandbox bank payouts through Increase’s sandbox (INCREASE_SANDBOX_*, replica)', () => {
  let replica: IncreaseReplica;
  let context: TestContext;
  let merchant: TestMerchant;

  before(async () => {
    replica = await startIncreaseReplica({ apiKey: 'sandbox_increase_key', webhookSecret: 'increase-sandbox-secret' });
    context = await createTestContext({
      env: {
        INCREASE_SANDBOX_API_KEY: replica.apiKey,
        INCREASE_SANDBOX_ACCOUNT_ID: replica.accountId,
        INCREASE_SANDBOX_WEBHOOK_SECRET: replica.webhookSecret,
        INCREASE_SANDBOX_BASE_URL: replica.baseURL,
      },
    });
    merchant = await context.createMerchant({ name: 'Acme Sandbox' });
  });
  after(async () => {
    await assertLedgerInvariants(context.database);
    await context.close();
    await replica.close();
  });

  const postWebhook = (webhook: SignedWebhook, path = '/providers/increase-sandbox/webhooks') => context.app.inject({ method: 'POST', url: path, payload: webhook.body, headers: webhook.headers });

  async function confirmedSandboxPage(amount: number, method: Record<string, unknown>, fundingCurrency: 'USD' | 'USDC' = 'USD') {
    const page = await createPage(context, merchant, { amount, fundingCurrency });
    const confirmed = await confirmPage(context, merchant, page.id, { payoutMethod: method, kyc: fullKyc });
    assert.equal(confirmed.statusCode, 200, confirmed.body);
    await advanceAndDrain(context);
    return getPage(context, merchant, page.id);
  }

  function transferOf(attemptId: string): Increase.ACHTransfer {
    const transfer = replica.transfers().find((candidate) => candidate.idempotency_key === attemptId);
    assert.ok(transfer, `a transfer at Increase's sandbox for ${attemptId}`);
    return transfer;
  }

  test('a sandbox bank payout is one ACH transfer at Increase’s sandbox, settled by a webhook on the sandbox endpoint', async () => {
    const before = await balanceOf(context.database, merchant.id, false, 'USD');
    const page = await confirmedSandboxPage(4_321, bankMethod);
    assert.equal(page.status, 'PROCESSING', 'the built-in sandbox rail would have paid it after its delay; Increase waits for its settlement');
    const [attempt] = await attemptsOfPage(context, page.id);
    assert.ok(attempt);
    assert.equal(attempt.rail, 'increase-sandbox');
    const transfer = transferOf(attempt.id);
    assert.equal(transfer.amount, 4_321);
    assert.equal(attempt.railReference, transfer.id);
    assert.match(transfer.statement_descriptor, /Acme Sandbox/);
    const webhook = replica.settle(transfer.id);
    assert.equal((await postWebhook(webhook, '/providers/increase/webhooks')).statusCode, 404, 'no live Increase endpoint: the live keys are unset');
    const received = await postWebhook(webhook);
    assert.equal(received.statusCode, 200, received.body);
    await context.drainJobs();
    assert.equal((await getPage(context, merchant, page.id)).status, 'PROCESSED');
    const after = await balanceOf(context.database, merchant.id, false, 'USD');
    assert.equal(after.available, before.available - 4_321);
    assert.equal(transferOf(attempt.id).id, transfer.id);
    assert.equal(replica.transfers().filter((candidate) => candidate.idempotency_key === attempt.id).length, 1, 'one transfer');
  });

  test('the built-in sandbox rules no longer decide bank payouts: account ending 0002 is sent to Increase’s sandbox, which rejects it', async () => {
    const page = await confirmedSandboxPage(1_500, rejectedBankMethod);
    const [attempt] = await attemptsOfPage(context, page.id);
    assert.ok(attempt);
    const transfer = transferOf(attempt.id);
    assert.equal((await getPage(context, merchant, page.id)).status, 'PROCESSING');
    assert.equal((await postWebhook(replica.reject(transfer.id))).statusCode, 200);
    await context.drainJobs();
    const failed = await getPage(context, merchant, page.id);
    assert.equal(failed.status, 'FAILED');
  });

  test('wallet payouts keep the built-in sandbox rail', async () => {
    const transfers = replica.transfers().length;
    const confirmed = await confirmedSandboxPage(2_000, walletMethod, 'USDC');
    await advanceAndDrain(context);
    const page = await getPage(context, merchant, confirmed.id);
    assert.equal(page.status, 'PROCESSED', 'paid by the sandbox rail after its delay');
    const [attempt] = await attemptsOfPage(context, page.id);
    assert.equal(attempt?.rail, 'sandbox-rail');
    assert.equal(replica.transfers().length, transfers, 'nothing sent to Increase');
  });

  test('the sandbox webhook endpoint verifies with the sandbox secret only', async () => {
    const other = await startIncreaseReplica({ webhookSecret: 'another-secret-entirely' });
    try {
      const page = await confirmedSandboxPage(900, bankMethod);
      const [attempt] = await attemptsOfPage(context, page.id);
      assert.ok(attempt);
      const forged = replica.settle(transferOf(attempt.id).id);
      const signedElsewhere = { ...forged, headers: { ...forged.headers, 'webhook-signature': other.unrelatedEvent().headers['webhook-signature'] ?? '' } };
      assert.equal((await postWebhook(signedElsewhere)).statusCode, 400);
    } finally {
      await other.close();
    }
  });

  test('paysail providers check: Increase in the test environment reads the sandbox account', async () => {
    const checks = context.platform.providerChecks.filter((check) => check.provider === 'increase');
    assert.deepEqual(
      checks.map((check) => check.environment),
      ['test'],
    );
    const [check] = checks;
    assert.ok(check);
    assert.match(await check.check(), new RegExp(replica.accountId));
  });
});
