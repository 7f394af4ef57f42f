import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { Transaction, TransactionState } from '@circle-fin/developer-controlled-wallets';
import { v5 as uuidv5 } from 'uuid';
import { createTestContext, json, type TestContext, type TestMerchant } from '../../helpers/context.ts';
import { assertLedgerInvariants, balanceOf } from '../../helpers/ledger.ts';
import { advanceAndDrain, assertOneEventPerChange, attemptsOfPage, confirmedLivePage, errorCodeOf, getPage, pageAction, pageEmails, walletMethod, type PayoutPageData } from '../../helpers/payout-pages.ts';
import { circleTransactionStateTable, circleTransactionStatus } from '../../../src/modules/payout-pages/rails/circle/status.ts';
import { circleIdempotencyKey } from '../../../src/modules/payout-pages/rails/circle/index.ts';
import type { PayoutMethodInput } from '../../../src/modules/payout-pages/destinations.ts';
import { startCircleReplica, type CircleReplica, type SignedNotification } from './replica.ts';

describe('Circle transaction state table (one test per row)', () => {
  const expected: Record<TransactionState, 'PENDING' | 'PAID' | 'REJECTED'> = {
    INITIATED: 'PENDING',
    QUEUED: 'PENDING',
    SENT: 'PENDING',
    STUCK: 'PENDING',
    CLEARED: 'PENDING',
    CONFIRMED: 'PENDING',
    COMPLETE: 'PAID',
    FAILED: 'REJECTED',
    CANCELLED: 'REJECTED',
    DENIED: 'REJECTED',
  };
  for (const [state, meaning] of Object.entries(expected) as Array<[TransactionState, string]>) {
    test(`${state} → ${meaning}`, () => {
      const status = circleTransactionStatus({ state, txHash: '0xabc' });
      assert.equal(status.status, meaning);
      if (status.status === 'PAID') {
        assert.equal(status.transactionHash, '0xabc', 'the hash travels with PAID');
      }
    });
  }
  test('the table covers every state the package knows, and nothing else', () => {
    assert.deepEqual(Object.keys(circleTransactionStateTable).sort(), Object.keys(expected).sort());
  });
  test('the idempotency key is a UUIDv5 of our attempt id: stable, distinct per attempt', () => {
    const key = circleIdempotencyKey('payout_attempt_1');
    assert.match(key, /^[0-9a-f]{8}-[0-9a-f]{4}-5[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    assert.equal(circleIdempotencyKey('payout_attempt_1'), key);
    assert.notEqual(circleIdempotencyKey('payout_attempt_2'), key);
  });
});

const baseWallet = { type: 'CRYPTO_WALLET', network: 'BASE', address: '0xfB6916095ca1df60bB79Ce92cE3Ea74c37c5d359' } as const;

describe('live USDC payouts through Circle (replica, official package)', () => {
  let replica: CircleReplica;
  let context: TestContext;
  let live: TestMerchant;

  before(async () => {
    replica = await startCircleReplica();
    context = await createTestContext({
      env: {
        CIRCLE_API_KEY: replica.apiKey,
        CIRCLE_ENTITY_SECRET: replica.entitySecret,
        CIRCLE_WALLET_ID: replica.walletIds.join(','),
        CIRCLE_FEE_LEVEL: 'HIGH',
        CIRCLE_WEBHOOK_SUBSCRIPTION_ID: replica.subscriptionId,
        CIRCLE_BASE_URL: replica.baseUrl,
      },
    });
    live = await context.createMerchant({ live: true, name: 'Acme Payroll' });
    const credited = await context.admin('POST', `/admin/v1/merchants/${live.id}/balance/credit`, { amount: 50_000_000, currency: 'USDC' });
    assert.equal(credited.statusCode, 200, credited.body);
  });
  after(async () => {
    await assertLedgerInvariants(context.database);
    await assertOneEventPerChange(context);
    await context.close();
    await replica.close();
  });

  const usdc = () => balanceOf(context.database, live.id, true, 'USDC');
  const attemptsOf = (pageId: string) => attemptsOfPage(context, pageId);
  const notify = (notification: SignedNotification, headers: Record<string, string> = notification.headers, body = notification.body) =>
    context.app.inject({ method: 'POST', url: '/providers/circle/webhooks', payload: body, headers });

  const processingPage = (amount: number, method: PayoutMethodInput = walletMethod, releaseMethod: 'AUTOMATIC' | 'MANUAL' = 'AUTOMATIC'): Promise<PayoutPageData> =>
    confirmedLivePage(context, live, { amount, fundingCurrency: 'USDC', method, releaseMethod });

  function transfersOf(attemptId: string): Transaction[] {
    return replica.transfers().filter((candidate) => candidate.refId === attemptId);
  }

  function transferOf(attemptId: string): Transaction {
    const [transfer, ...others] = transfersOf(attemptId);
    assert.ok(transfer, `a transfer at Circle for ${attemptId}`);
    assert.equal(others.length, 0, 'exactly one transfer');
    return transfer;
  }

  test('confirmed: one USDC transfer (operator wallet on the chain, fee level, refId and UUIDv5 key of our attempt id); paid with its hash and explorer link', async () => {
    const before = await usdc();
    const page = await processingPage(1_234);
    assert.equal(page.status, 'PROCESSING');
    const [attempt] = await attemptsOf(page.id);
    assert.ok(attempt);
    assert.equal(attempt.rail, 'circle');
    const transfer = transferOf(attempt.id);
    assert.deepEqual(transfer.amounts, ['12.34']);
    assert.equal(transfer.blockchain, 'ETH-SEPOLIA', 'a TEST_API_KEY pays on the testnet of the chosen network');
    assert.equal(transfer.destinationAddress, walletMethod.address);
    assert.equal(transfer.feeLevel, 'HIGH');
    assert.ok(replica.idempotencyKeys.includes(uuidv5(attempt.id, 'a3f6c1e2-52a4-4f0b-9c67-1d0e3b8f5a90')));
    assert.equal(attempt.railReference, transfer.id);
    assert.equal((await notify(replica.advance(transfer.id, 'SENT'))).statusCode, 200);
    await context.drainJobs();
    assert.equal((await getPage(context, live, page.id)).status, 'PROCESSING', 'sent is not final');
    assert.equal((await notify(replica.advance(transfer.id, 'COMPLETE'))).statusCode, 200);
    await context.drainJobs();
    const paid = await getPage(context, live, page.id);
    assert.equal(paid.status, 'PROCESSED');
    const details = paid.payoutDetails as { transactionHash: string; explorerUrl: string };
    assert.equal(details.transactionHash, replica.transfers().find((candidate) => candidate.id === transfer.id)?.txHash);
    assert.equal(details.explorerUrl, `https://etherscan.io/tx/${details.transactionHash}`);
    const [stored] = await attemptsOf(page.id);
    assert.equal(stored?.transactionHash, details.transactionHash, 'stored on the attempt');
    const after = await usdc();
    assert.equal(after.available, before.available - 1_234);
    assert.equal(after.external, before.external + 1_234);
    const hosted = await context.app.inject({ method: 'GET', url: `/payout-page/${page.id}` });
    assert.equal(hosted.statusCode, 200);
    assert.ok(hosted.body.includes(details.transactionHash), 'the customer sees the hash');
    assert.ok(hosted.body.includes(`href="https://etherscan.io/tx/${details.transactionHash}"`), 'and the explorer link');
  });

  test('failed at Circle → FAILED/PAYOUT_REJECTED, money back; the customer retries with another address → a second transfer, paid', async () => {
    const before = await usdc();
    const page = await processingPage(2_000);
    const [attempt] = await attemptsOf(page.id);
    assert.ok(attempt);
    const first = transferOf(attempt.id);
    await notify(replica.advance(first.id, 'FAILED', 'INSUFFICIENT_NATIVE_TOKEN'));
    await context.drainJobs();
    const failed = await getPage(context, live, page.id);
    assert.equal(`${failed.status}/${failed['sub-status']}`, 'FAILED/PAYOUT_REJECTED');
    assert.match(String(failed.statusReason), /failed/);
    assert.equal(failed.payoutDetails, undefined);
    assert.deepEqual(await usdc(), before);
    await context.platform.services.payoutPages.confirm(page.id, baseWallet);
    await context.drainJobs();
    const attempts = await attemptsOf(page.id);
    assert.equal(attempts.length, 2);
    const second = transferOf(attempts[1]?.id ?? '');
    assert.notEqual(second.id, first.id);
    assert.equal(second.blockchain, 'BASE-SEPOLIA');
    assert.equal(second.destinationAddress, baseWallet.address);
    await notify(replica.advance(second.id, 'COMPLETE'));
    await context.drainJobs();
    const paid = await getPage(context, live, page.id);
    assert.equal(paid.status, 'PROCESSED');
    assert.match(String((paid.payoutDetails as { explorerUrl: string }).explorerUrl), /^https:\/\/basescan\.org\/tx\/0x[0-9a-f]{64}$/);
    assert.equal((await usdc()).available, before.available - 2_000, 'paid once');
  });

  test('a network without an operator wallet (Polygon) is refused at once: nothing sent, the customer is asked again', async () => {
    const requests = replica.createRequests;
    const page = await processingPage(1_000, { type: 'CRYPTO_WALLET', network: 'POLYGON', address: walletMethod.address });
    const refused = await getPage(context, live, page.id);
    assert.equal(`${refused.status}/${refused['sub-status']}`, 'FAILED/PAYOUT_REJECTED');
    assert.match(String(refused.statusReason), /no wallet on POLYGON/);
    assert.equal(replica.createRequests, requests);
  });

  test('webhooks: bad signature, unknown key, other subscription → 400, nothing recorded; duplicate handled once; out of order changes nothing; keys cached', async () => {
    const page = await processingPage(3_000);
    const [attempt] = await attemptsOf(page.id);
    assert.ok(attempt);
    const transfer = transferOf(attempt.id);
    const sent = replica.advance(transfer.id, 'SENT');
    const complete = replica.advance(transfer.id, 'COMPLETE');
    const tampered = await notify(complete, complete.headers, complete.body.replace('"COMPLETE"', '"COMPLETF"'));
    assert.equal(tampered.statusCode, 400);
    assert.equal(errorCodeOf(tampered), 'WRONG_PARAMETER');
    const forged = await notify(replica.forge(transfer.id));
    assert.equal(forged.statusCode, 400, 'a key id Circle never published');
    const noSignature = await notify(complete, { ...complete.headers, 'x-circle-signature': '' });
    assert.equal(noSignature.statusCode, 400);
    await context.drainJobs();
    assert.equal((await getPage(context, live, page.id)).status, 'PROCESSING', 'nothing was recorded');
    const fetches = replica.keyFetches;
    assert.equal((await notify(complete)).statusCode, 200);
    assert.equal((await notify(complete)).statusCode, 200, 'a redelivery is acknowledged');
    assert.equal(replica.keyFetches, fetches, 'the known key is cached');
    await context.drainJobs();
    assert.equal((await getPage(context, live, page.id)).status, 'PROCESSED');
    assert.equal((await notify(sent)).statusCode, 200, 'the older notification arrives late');
    await context.drainJobs();
    assert.equal((await getPage(context, live, page.id)).status, 'PROCESSED', 'the late notification changes nothing');
    const processed = (await pageEmails(context, page.id)).filter((email) => email.template === 'payout_page_processed');
    assert.equal(processed.length, 1, 'handled once');
  });

  test('a lost answer on creation: the retry looks the transfer up by refId and finds it; exactly one transfer at Circle', async () => {
    replica.loseCreateAnswers(1);
    const page = await processingPage(5_000);
    const [attempt] = await attemptsOf(page.id);
    assert.ok(attempt);
    assert.equal(attempt.status, 'SUBMITTING', 'the answer was lost: outcome unknown');
    assert.equal(transfersOf(attempt.id).length, 1, 'yet Circle has it');
    const requests = replica.createRequests;
    await advanceAndDrain(context, 120_000);
    const [found] = await attemptsOf(page.id);
    assert.equal(found?.status, 'SUBMITTED');
    assert.equal(found?.railReference, transferOf(attempt.id).id);
    assert.equal(replica.createRequests, requests, 'looked up, not resubmitted');
  });

  test('operator funding: a payout the USDC wallet cannot cover waits with the reason shown, then goes on its own once funded', async () => {
    replica.setUsdcBalance('50.009999');
    const requests = replica.createRequests;
    const page = await processingPage(8_000);
    assert.equal(page.status, 'PROCESSING');
    assert.match(String(page.statusReason), /fund the payout account/);
    assert.equal(replica.createRequests, requests, 'nothing sent while short');
    const waitingView = await context.app.inject({ method: 'GET', url: `/payout-page/${page.id}` });
    assert.match(waitingView.body, /being prepared/, 'the customer is not told it was sent');
    assert.doesNotMatch(waitingView.body, /has been sent/);
    await advanceAndDrain(context, 31_000);
    assert.equal(replica.createRequests, requests, 'still waiting');
    replica.setUsdcBalance('80.00');
    await advanceAndDrain(context, 31_000);
    assert.equal(replica.createRequests, requests + 1, 'sent once funded');
    assert.equal((await getPage(context, live, page.id)).statusReason, undefined, 'the reason is cleared');
    replica.setUsdcBalance('1000000.000000');
  });

  test('50 concurrent releases of one MANUAL page → one release, one transfer', async () => {
    const page = await processingPage(6_000, walletMethod, 'MANUAL');
    assert.equal(page['sub-status'], 'AWAITING_RELEASE');
    const responses = await Promise.all(Array.from({ length: 50 }, () => pageAction(context, live, page.id, 'release')));
    assert.equal(responses.filter((response) => response.statusCode === 200).length, 1);
    assert.ok(responses.every((response) => response.statusCode === 200 || errorCodeOf(response) === 'INVALID_STATE'));
    await context.drainJobs();
    const attempts = await attemptsOf(page.id);
    assert.equal(attempts.length, 1);
    transferOf(attempts[0]?.id ?? '');
    const winner = responses.find((response) => response.statusCode === 200);
    assert.ok(winner);
    assert.equal(json<{ data: PayoutPageData }>(winner).data.status, 'PROCESSING');
  });

  test('paysail providers check reads each wallet with the configured credentials', async () => {
    const checks = context.platform.providerChecks.filter((check) => check.provider === 'circle');
    assert.equal(checks.length, 1);
    const described = await checks[0]?.check();
    assert.match(String(described), /ETH-SEPOLIA, LIVE, 1000000\.000000 USDC/);
  });
});
