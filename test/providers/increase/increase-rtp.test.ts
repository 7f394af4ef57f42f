import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type Increase from 'increase';
import { createTestContext, json, type TestContext, type TestMerchant } from '../../helpers/context.ts';
import { assertLedgerInvariants, balanceOf } from '../../helpers/ledger.ts';
import { assertOneEventPerChange, attemptsOfPage, bankMethod, confirmedLivePage, getPage, type PayoutPageData } from '../../helpers/payout-pages.ts';
import { increaseStatusTable, increaseRtpTransferStatus } from '../../../src/modules/payout-pages/rails/increase/status.ts';
import type { PayoutReconciliationReport } from '../../../src/modules/payout-pages/reconciliation.ts';
import { startIncreaseReplica, type IncreaseReplica, type SignedWebhook } from './replica.ts';

describe('Increase Real-Time Payments status table (one test per row)', () => {
  const expected: Record<Increase.RealTimePaymentsTransfer['status'], string> = {
    pending_approval: 'PENDING',
    pending_submission: 'PENDING',
    pending_reviewing: 'PENDING',
    requires_attention: 'PENDING',
    submitted: 'PENDING',
    complete: 'PAID',
    canceled: 'REJECTED',
    rejected: 'REJECTED',
  };
  for (const [status, meaning] of Object.entries(expected) as Array<[Increase.RealTimePaymentsTransfer['status'], string]>) {
    test(`${status} → ${meaning}`, () => {
      assert.equal(increaseRtpTransferStatus({ status, rejection: null }).status, meaning);
    });
  }
  test('the table covers every status the package knows, and nothing else; a rejection names its reason code', () => {
    assert.deepEqual(Object.keys(increaseStatusTable.real_time_payments_transfer).sort(), Object.keys(expected).sort());
    const rejected = increaseRtpTransferStatus({ status: 'rejected', rejection: { reject_reason_additional_information: null, reject_reason_code: 'account_closed', rejected_at: null } });
    assert.equal(rejected.status, 'REJECTED');
    assert.match(rejected.status === 'REJECTED' ? rejected.reason : '', /account_closed/);
  });
});

describe('live bank payouts by Real-Time Payments through Increase (INCREASE_RTP_ENABLED, replica)', () => {
  const sourceAccountNumberId = 'account_number_v18nkfqm6afpsrvy82b2';
  const achOnlyRoutingNumber = '011000015';
  let replica: IncreaseReplica;
  let context: TestContext;
  let live: TestMerchant;

  before(async () => {
    replica = await startIncreaseReplica();
    replica.supportRealTimePayments(bankMethod.routingNumber);
    context = await createTestContext({
      env: {
        INCREASE_API_KEY: replica.apiKey,
        INCREASE_ACCOUNT_ID: replica.accountId,
        INCREASE_WEBHOOK_SECRET: replica.webhookSecret,
        INCREASE_BASE_URL: replica.baseURL,
        INCREASE_RTP_ENABLED: 'true',
        INCREASE_RTP_ACCOUNT_NUMBER_ID: sourceAccountNumberId,
      },
    });
    live = await context.createMerchant({ live: true, name: 'Acme Instant' });
    const credited = await context.admin('POST', `/admin/v1/merchants/${live.id}/balance/credit`, { amount: 10_000_000, currency: 'USD' });
    assert.equal(credited.statusCode, 200, credited.body);
  });
  after(async () => {
    await assertLedgerInvariants(context.database);
    await assertOneEventPerChange(context);
    await context.close();
    await replica.close();
  });

  const usd = () => balanceOf(context.database, live.id, true, 'USD');
  const postWebhook = (webhook: SignedWebhook) => context.app.inject({ method: 'POST', url: '/providers/increase/webhooks', payload: webhook.body, headers: webhook.headers });
  const processingPage = (amount: number, routingNumber: string = bankMethod.routingNumber): Promise<PayoutPageData> =>
    confirmedLivePage(context, live, { amount, fundingCurrency: 'USD', method: { ...bankMethod, routingNumber } });

  function rtpTransferOf(attemptId: string): Increase.RealTimePaymentsTransfer {
    const transfers = replica.rtpTransfers().filter((candidate) => candidate.idempotency_key === attemptId);
    assert.equal(transfers.length, 1, `one RTP transfer for ${attemptId}`);
    const [transfer] = transfers;
    assert.ok(transfer);
    return transfer;
  }

  test('a bank that receives RTP: one Real-Time Payments transfer (our attempt id as idempotency key, merchant in the remittance), no ACH; PROCESSED when complete', async () => {
    const before = await usd();
    const lookups = replica.routingLookups;
    const page = await processingPage(25_000);
    assert.equal(page.status, 'PROCESSING');
    assert.ok(replica.routingLookups > lookups, 'the receiving bank was looked up');
    const [attempt] = await attemptsOfPage(context, page.id);
    assert.ok(attempt);
    const transfer = rtpTransferOf(attempt.id);
    assert.deepEqual(
      { amount: transfer.amount, account: transfer.account_number, routing: transfer.routing_number, creditor: transfer.creditor_name, source: transfer.source_account_number_id },
      { amount: 25_000, account: bankMethod.accountNumber, routing: bankMethod.routingNumber, creditor: bankMethod.accountHolderName, source: sourceAccountNumberId },
    );
    assert.match(transfer.unstructured_remittance_information, /Acme Instant/);
    assert.equal(attempt.railReference, transfer.id);
    assert.equal(replica.transfers().filter((ach) => ach.idempotency_key === attempt.id).length, 0, 'no ACH credit');
    const received = await postWebhook(replica.completeRtp(transfer.id));
    assert.equal(received.statusCode, 200, received.body);
    await context.drainJobs();
    assert.equal((await getPage(context, live, page.id)).status, 'PROCESSED');
    const after = await usd();
    assert.equal(after.available, before.available - 25_000);
    assert.equal(after.external, before.external + 25_000);
  });

  test('a bank without RTP: an ACH credit, as without the setting', async () => {
    const page = await processingPage(3_000, achOnlyRoutingNumber);
    const [attempt] = await attemptsOfPage(context, page.id);
    assert.ok(attempt);
    assert.equal(replica.rtpTransfers().filter((transfer) => transfer.idempotency_key === attempt.id).length, 0);
    const [ach] = replica.transfers().filter((transfer) => transfer.idempotency_key === attempt.id);
    assert.ok(ach, 'an ACH credit');
    assert.equal(ach.routing_number, achOnlyRoutingNumber);
    await postWebhook(replica.settle(ach.id));
    await context.drainJobs();
    assert.equal((await getPage(context, live, page.id)).status, 'PROCESSED');
  });

  test('an RTP transfer rejected by the receiving bank → FAILED/PAYOUT_REJECTED with the reason code; the money back', async () => {
    const before = await usd();
    const page = await processingPage(4_500);
    const [attempt] = await attemptsOfPage(context, page.id);
    assert.ok(attempt);
    await postWebhook(replica.rejectRtp(rtpTransferOf(attempt.id).id));
    await context.drainJobs();
    const failed = await getPage(context, live, page.id);
    assert.equal(`${failed.status}/${failed['sub-status']}`, 'FAILED/PAYOUT_REJECTED');
    assert.match(String(failed.statusReason), /account_closed/);
    assert.deepEqual(await usd(), before);
  });

  test('a lost submission answer is found again among the RTP transfers by our id: still one transfer, no ACH', async () => {
    const page = await processingPage(1_200);
    const [attempt] = await attemptsOfPage(context, page.id);
    assert.ok(attempt);
    const rail = context.platform.services.payoutPages.railFor(true, 'BANK_TRANSFER');
    assert.ok(rail);
    const found = await rail.retrieve(attempt.id);
    assert.equal(found?.reference, rtpTransferOf(attempt.id).id);
    assert.equal(found?.status.status, 'PENDING');
  });

  test('the daily reconciliation lists RTP transfers next to ACH credits: no difference', async () => {
    const today = context.clock.now().toISOString().slice(0, 10);
    const response = await context.admin('GET', `/admin/v1/reconciliation/payouts?date=${today}`);
    assert.equal(response.statusCode, 200, response.body);
    const report = json<{ data: PayoutReconciliationReport }>(response).data;
    const increase = report.rails.find((rail) => rail.rail === 'increase' && rail.livemode);
    assert.ok(increase);
    assert.equal(increase.provider, replica.rtpTransfers().length + replica.transfers().length);
    assert.deepEqual(increase.differences, []);
  });
});
