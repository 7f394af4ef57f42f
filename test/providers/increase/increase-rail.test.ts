import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { eq } from 'drizzle-orm';
import type Increase from 'increase';
import { createTestContext, json, type TestContext, type TestMerchant } from '../../helpers/context.ts';
import { assertLedgerInvariants, balanceOf } from '../../helpers/ledger.ts';
import { advanceAndDrain, assertOneEventPerChange, attemptsOfPage, bankMethod, confirmedLivePage, createPage, errorCodeOf, getPage, pageAction, pageEmails, type PayoutPageData } from '../../helpers/payout-pages.ts';
import { customers, jobs } from '../../../src/db/schema/index.ts';
import { increaseAchStatusTable, increaseTransferStatus } from '../../../src/modules/payout-pages/rails/increase/status.ts';
import type { PayoutMethodInput } from '../../../src/modules/payout-pages/destinations.ts';
import { startIncreaseReplica, type IncreaseReplica, type SignedWebhook } from './replica.ts';

describe('Increase status table (one test per row)', () => {
  const expected: Record<Increase.ACHTransfer['status'], string> = {
    pending_approval: 'PENDING',
    pending_transfer_session_confirmation: 'PENDING',
    pending_reviewing: 'PENDING',
    pending_submission: 'PENDING',
    requires_attention: 'PENDING',
    submitted: 'PENDING until settled, then PAID',
    canceled: 'REJECTED',
    rejected: 'REJECTED',
    returned: 'RETURNED',
  };
  for (const [status, meaning] of Object.entries(expected) as Array<[Increase.ACHTransfer['status'], string]>) {
    test(`${status} → ${meaning}`, () => {
      const unsettled = increaseTransferStatus({ status, settlement: null, return: null }).status;
      const settled = increaseTransferStatus({ status, settlement: { settled_at: '2026-01-01T00:00:00Z' }, return: null }).status;
      if (status === 'submitted') {
        assert.equal(unsettled, 'PENDING');
        assert.equal(settled, 'PAID');
      } else {
        assert.equal(unsettled, meaning);
        assert.equal(settled, meaning, 'a settlement does not change the other statuses');
      }
    });
  }
  test('the table covers every status the package knows, and nothing else', () => {
    assert.deepEqual(Object.keys(increaseAchStatusTable).sort(), Object.keys(expected).sort());
  });
});

describe('live bank payouts through Increase (replica, official package)', () => {
  let replica: IncreaseReplica;
  let context: TestContext;
  let live: TestMerchant;

  before(async () => {
    replica = await startIncreaseReplica();
    context = await createTestContext({
      env: { INCREASE_API_KEY: replica.apiKey, INCREASE_ACCOUNT_ID: replica.accountId, INCREASE_WEBHOOK_SECRET: replica.webhookSecret, INCREASE_BASE_URL: replica.baseURL },
    });
    live = await context.createMerchant({ live: true, name: 'Acme Payroll' });
    const credited = await context.admin('POST', `/admin/v1/merchants/${live.id}/balance/credit`, { amount: 50_000_000, currency: 'USD' });
    assert.equal(credited.statusCode, 200, credited.body);
  });
  after(async () => {
    await assertLedgerInvariants(context.database);
    await assertOneEventPerChange(context);
    await context.close();
    await replica.close();
  });

  const usd = () => balanceOf(context.database, live.id, true, 'USD');
  const attemptsOf = (pageId: string) => attemptsOfPage(context, pageId);
  const postWebhook = (webhook: SignedWebhook, headers: Record<string, string> = webhook.headers) =>
    context.app.inject({ method: 'POST', url: '/providers/increase/webhooks', payload: webhook.body, headers });

  const processingPage = (amount: number, method: PayoutMethodInput = bankMethod, releaseMethod: 'AUTOMATIC' | 'MANUAL' = 'AUTOMATIC'): Promise<PayoutPageData> =>
    confirmedLivePage(context, live, { amount, fundingCurrency: 'USD', method, releaseMethod });

  function transferOf(attemptId: string): Increase.ACHTransfer {
    const transfer = replica.transfers().find((candidate) => candidate.idempotency_key === attemptId);
    assert.ok(transfer, `a transfer at Increase for ${attemptId}`);
    return transfer;
  }

  test('paid: one ACH credit (same-day, merchant on the statement, our attempt id as idempotency key); settled by a verified webhook', async () => {
    const before = await usd();
    const page = await processingPage(12_345);
    assert.equal(page.status, 'PROCESSING');
    const [attempt] = await attemptsOf(page.id);
    assert.ok(attempt);
    const transfer = transferOf(attempt.id);
    assert.equal(transfer.amount, 12_345);
    assert.equal(transfer.account_number, bankMethod.accountNumber);
    assert.equal(transfer.routing_number, bankMethod.routingNumber);
    assert.equal(transfer.funding, 'checking');
    assert.equal(transfer.preferred_effective_date.settlement_schedule, 'same_day');
    assert.match(transfer.statement_descriptor, /Acme Payroll/);
    assert.equal(attempt.railReference, transfer.id);
    const webhook = replica.settle(transfer.id);
    const received = await postWebhook(webhook);
    assert.equal(received.statusCode, 200, received.body);
    assert.equal((await getPage(context, live, page.id)).status, 'PROCESSING', 'acknowledged first, handled in a job');
    await context.drainJobs();
    assert.equal((await getPage(context, live, page.id)).status, 'PROCESSED');
    const after = await usd();
    assert.equal(after.available, before.available - 12_345);
    assert.equal(after.external, before.external + 12_345);
  });

  test('webhooks: a bad signature is 400 and records nothing; a duplicate is handled once; an unrelated event changes nothing', async () => {
    const page = await processingPage(2_000);
    const [attempt] = await attemptsOf(page.id);
    assert.ok(attempt);
    const webhook = replica.settle(transferOf(attempt.id).id);
    const forged = await postWebhook(webhook, { ...webhook.headers, 'webhook-signature': 'v1,AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA=' });
    assert.equal(forged.statusCode, 400);
    assert.equal(errorCodeOf(forged), 'WRONG_PARAMETER');
    const tampered = await context.app.inject({ method: 'POST', url: '/providers/increase/webhooks', payload: webhook.body.replace('ach_transfer', 'ach_transfex'), headers: webhook.headers });
    assert.equal(tampered.statusCode, 400);
    await context.drainJobs();
    assert.equal((await getPage(context, live, page.id)).status, 'PROCESSING', 'nothing was recorded');
    assert.equal((await postWebhook(webhook)).statusCode, 200);
    assert.equal((await postWebhook(webhook)).statusCode, 200, 'a redelivery is acknowledged');
    await context.drainJobs();
    const processed = (await pageEmails(context, page.id)).filter((email) => email.template === 'payout_page_processed');
    assert.equal(processed.length, 1, 'handled once');
    assert.equal((await postWebhook(replica.unrelatedEvent())).statusCode, 200);
    await context.drainJobs();
    assert.equal((await getPage(context, live, page.id)).status, 'PROCESSED');
  });

  test('out of order: a return reported before the settlement was seen → PAID then FAILED/PAYOUT_RETURNED; money back; the customer retries once', async () => {
    const before = await usd();
    const page = await processingPage(3_000);
    const [attempt] = await attemptsOf(page.id);
    assert.ok(attempt);
    const transfer = transferOf(attempt.id);
    const settled = replica.settle(transfer.id);
    const returned = replica.returnTransfer(transfer.id);
    assert.equal((await postWebhook(returned)).statusCode, 200);
    await context.drainJobs();
    const failed = await getPage(context, live, page.id);
    assert.equal(`${failed.status}/${failed['sub-status']}`, 'FAILED/PAYOUT_RETURNED');
    assert.match(String(failed.statusReason), /R03/);
    assert.equal((await postWebhook(settled)).statusCode, 200, 'the older event arrives late');
    await context.drainJobs();
    assert.equal((await getPage(context, live, page.id))['sub-status'], 'PAYOUT_RETURNED', 'the late event changes nothing');
    assert.deepEqual(await usd(), before);
    assert.ok((await pageEmails(context, page.id)).some((email) => email.template === 'payout_page_returned'));
    await context.platform.services.payoutPages.confirm(page.id, { ...bankMethod, accountNumber: '99887766' });
    await context.drainJobs();
    const attempts = await attemptsOf(page.id);
    assert.equal(attempts.length, 2);
    const second = transferOf(attempts[1]?.id ?? '');
    assert.notEqual(second.id, transfer.id);
    assert.equal(second.account_number, '99887766');
    await postWebhook(replica.settle(second.id));
    await context.drainJobs();
    assert.equal((await getPage(context, live, page.id)).status, 'PROCESSED');
    assert.equal((await usd()).available, before.available - 3_000, 'paid once');
  });

  test('rejected by Increase → FAILED/PAYOUT_REJECTED with the reason; funds back to available', async () => {
    const before = await usd();
    const page = await processingPage(4_000);
    const [attempt] = await attemptsOf(page.id);
    assert.ok(attempt);
    await postWebhook(replica.reject(transferOf(attempt.id).id));
    await context.drainJobs();
    const rejected = await getPage(context, live, page.id);
    assert.equal(`${rejected.status}/${rejected['sub-status']}`, 'FAILED/PAYOUT_REJECTED');
    assert.match(String(rejected.statusReason), /rejected/);
    assert.deepEqual(await usd(), before);
  });

  test('a wallet or a USDC-funded page is refused by the bank rail at once: the customer is asked again, the merchant sees why', async () => {
    const credited = await context.admin('POST', `/admin/v1/merchants/${live.id}/balance/credit`, { amount: 1_000, currency: 'USDC' });
    assert.equal(credited.statusCode, 200);
    const page = await createPage(context, live, { amount: 1_000, fundingCurrency: 'USDC' }, '?livemode=true');
    await context.database.db.update(customers).set({ kycStatus: 'APPROVED' }).where(eq(customers.id, page.customer.id));
    const before = replica.createRequests;
    await context.platform.services.payoutPages.confirm(page.id, bankMethod);
    await context.drainJobs();
    const refused = await getPage(context, live, page.id);
    assert.equal(`${refused.status}/${refused['sub-status']}`, 'FAILED/PAYOUT_REJECTED');
    assert.match(String(refused.statusReason), /USD/);
    assert.equal(replica.createRequests, before, 'nothing was sent to Increase');
  });

  test('a lost answer on submission: the retry looks the transfer up by our id and finds it; exactly one transfer', async () => {
    // The package retries twice on a dropped connection (same idempotency key): lose all three answers.
    replica.loseCreateAnswers(3);
    const page = await processingPage(5_000);
    const [attempt] = await attemptsOf(page.id);
    assert.ok(attempt);
    assert.equal(attempt.status, 'SUBMITTING', 'the answer was lost: outcome unknown');
    assert.equal(replica.transfers().filter((transfer) => transfer.idempotency_key === attempt.id).length, 1, 'yet Increase has it');
    const requests = replica.createRequests;
    await advanceAndDrain(context, 120_000); // the submit job's retry
    const [found] = await attemptsOf(page.id);
    assert.equal(found?.status, 'SUBMITTED');
    assert.equal(found?.railReference, transferOf(attempt.id).id);
    assert.equal(replica.createRequests, requests, 'looked up, not resubmitted');
    assert.equal(replica.transfers().filter((transfer) => transfer.idempotency_key === attempt.id).length, 1);
  });

  test('reconciliation: a submission whose answer was lost and whose job gave up is looked up by our id and settled; one transfer', async () => {
    replica.loseCreateAnswers(3);
    const page = await processingPage(7_000);
    const [attempt] = await attemptsOf(page.id);
    assert.ok(attempt);
    assert.equal(attempt.status, 'SUBMITTING');
    // The worker gave up on the submit job (a crash loop, an outage): only reconciliation is left.
    await context.database.db.update(jobs).set({ status: 'dead' }).where(eq(jobs.dedupeKey, `payout_pages.submit:${attempt.id}`));
    const requests = replica.createRequests;
    context.clock.advance(16 * 60 * 1000); // past PAYOUT_RECONCILE_AFTER_MS (15 min)
    await context.database.transaction((tx) => context.platform.services.payoutPages.scheduleReconcile(tx, new Date(context.clock.now().getTime() - 15 * 60 * 1000)));
    await context.drainJobs();
    const [reconciled] = await attemptsOf(page.id);
    assert.equal(reconciled?.status, 'SUBMITTED');
    assert.equal(reconciled?.railReference, transferOf(attempt.id).id);
    assert.equal(replica.createRequests, requests, 'looked up, not resubmitted');
    assert.equal(replica.transfers().filter((transfer) => transfer.idempotency_key === attempt.id).length, 1, 'exactly one transfer at Increase');
    // Settled without any webhook: the next reconciliation asks Increase where the transfer is.
    replica.settle(transferOf(attempt.id).id);
    context.clock.advance(16 * 60 * 1000);
    await context.drainJobs();
    assert.equal((await getPage(context, live, page.id)).status, 'PROCESSED');
  });

  test('operator funding: a payout the Increase account cannot cover waits with the reason shown, then goes on its own once funded', async () => {
    replica.setAvailableBalance(5_000);
    const requests = replica.createRequests;
    const page = await processingPage(8_000);
    assert.equal(page.status, 'PROCESSING');
    assert.match(String(page.statusReason), /fund the payout account/);
    assert.equal(replica.createRequests, requests, 'nothing sent while short');
    const [attempt] = await attemptsOf(page.id);
    assert.equal(attempt?.status, 'SUBMITTING');
    await advanceAndDrain(context, 61_000);
    assert.equal(replica.createRequests, requests, 'still waiting');
    replica.setAvailableBalance(1_000_000);
    await advanceAndDrain(context, 61_000);
    assert.equal(replica.createRequests, requests + 1, 'sent once funded');
    const funded = await getPage(context, live, page.id);
    assert.equal(funded.statusReason, undefined, 'the reason is cleared');
    await postWebhook(replica.settle(transferOf(attempt?.id ?? '').id));
    await context.drainJobs();
    assert.equal((await getPage(context, live, page.id)).status, 'PROCESSED');
    replica.setAvailableBalance(1_000_000_000);
  });

  test('50 concurrent releases of one MANUAL page → one release, one transfer', async () => {
    const page = await processingPage(6_000, bankMethod, 'MANUAL');
    assert.equal(page['sub-status'], 'AWAITING_RELEASE');
    const responses = await Promise.all(Array.from({ length: 50 }, () => pageAction(context, live, page.id, 'release')));
    assert.equal(responses.filter((response) => response.statusCode === 200).length, 1);
    assert.ok(responses.every((response) => response.statusCode === 200 || errorCodeOf(response) === 'INVALID_STATE'));
    await context.drainJobs();
    const attempts = await attemptsOf(page.id);
    assert.equal(attempts.length, 1);
    assert.equal(replica.transfers().filter((transfer) => transfer.idempotency_key === attempts[0]?.id).length, 1);
    const winner = responses.find((response) => response.statusCode === 200);
    assert.ok(winner);
    assert.equal(json<{ data: PayoutPageData }>(winner).data.status, 'PROCESSING');
  });
});
