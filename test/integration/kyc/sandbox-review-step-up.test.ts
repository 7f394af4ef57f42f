import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { createTestContext, type TestContext, type TestMerchant } from '../../helpers/context.ts';
import { assertSucceeded, completeKyc, createCustomer, type CustomerData } from '../../helpers/assertions.ts';
import { jobRows } from '../../helpers/jobs.ts';
import { kycVerifyQueue } from '../../../src/modules/kyc/service.ts';

const delayMs = 2_000;

describe('Sandbox KYC: review, document step-up and re-verification (docs/API.md §17)', () => {
  let context: TestContext;
  let merchant: TestMerchant;
  const decisions: Array<{ customerId: string; status: string }> = [];

  before(async () => {
    context = await createTestContext({ env: { SANDBOX_KYC_DELAY_MS: String(delayMs) } });
    merchant = await context.createMerchant();
    context.platform.services.kyc.onDecision(async (_tx, decision) => {
      decisions.push({ customerId: decision.customerId, status: decision.status });
    });
  });
  after(async () => context.close());

  const read = async (id: string) => assertSucceeded<CustomerData & { kycReason?: string }>(await context.request({ method: 'GET', url: `/v1/customers/${id}?livemode=false`, apiKey: merchant.apiKey }));

  async function settle(): Promise<void> {
    await context.drainJobs();
    context.clock.advance(delayMs);
    await context.drainJobs();
  }

  test('lastName "Review" → stays PENDING in review, with a non-PII kycReason; no decision is heard', async () => {
    const customer = await createCustomer(context, merchant.apiKey, { ...completeKyc, lastName: 'Review' });
    await settle();
    context.clock.advance(delayMs * 100);
    await context.drainJobs();
    const read1 = await read(customer.id);
    assert.equal(read1.kycStatus, 'PENDING');
    assert.match(String(read1.kycReason), /manual review/);
    assert.doesNotMatch(String(read1.kycReason), /Ada|Lovelace|1990/);
    const verification = await context.platform.services.kyc.latestVerification(customer.id);
    assert.equal(verification?.providerOutcome, 'REVIEW');
    assert.deepEqual(verification?.breakdown, { sandbox_rules: 'review' });
    assert.equal(decisions.some((decision) => decision.customerId === customer.id), false);
    const job = (await jobRows(context.database, kycVerifyQueue)).find((row) => row.dedupeKey === `kyc.verify:${String(verification?.id)}`);
    assert.equal(job?.status, 'succeeded', 'nothing polls a verification waiting on a person');
  });

  test('lastName "Documents" → step-up: waits for documents, then the document check approves', async () => {
    const customer = await createCustomer(context, merchant.apiKey, { ...completeKyc, lastName: 'Documents' });
    await settle();
    const waiting = await context.platform.services.kyc.awaitingDocuments(customer.id);
    assert.ok(waiting, 'the verification waits for documents');
    assert.equal(waiting.stage, 'DATA');
    assert.equal((await read(customer.id)).kycStatus, 'PENDING');
    assert.match(String((await read(customer.id)).kycReason), /documents/);
    const capture = await context.platform.services.kyc.stepUpCapture(waiting, 'http://paysail.test/*');
    assert.equal(capture?.kind, 'TEST_DOCUMENTS');
    assert.deepEqual(capture?.kind === 'TEST_DOCUMENTS' ? capture.documents.map((document) => document.value) : [], ['passport_genuine', 'passport_tampered', 'passport_blurred']);

    assert.equal(await context.platform.services.kyc.submitDocuments(waiting.id, { testDocument: 'a-real-passport.jpg' }), 'CAPTURE_MISSING', 'only the test documents exist');
    assert.equal(await context.platform.services.kyc.submitDocuments(waiting.id, { documentId: 'x', faceId: 'y' }), 'CAPTURE_MISSING', 'the sandbox has no SDK uploads');
    assert.ok(await context.platform.services.kyc.awaitingDocuments(customer.id), 'still waiting');
    assert.equal(await context.platform.services.kyc.submitDocuments(waiting.id, { testDocument: 'passport_genuine' }), 'SUBMITTED');
    assert.equal(await context.platform.services.kyc.submitDocuments(waiting.id, { testDocument: 'passport_tampered' }), 'NOT_WAITING', 'documents are submitted once');
    assert.equal(await context.platform.services.kyc.awaitingDocuments(customer.id), null);
    await context.drainJobs();
    assert.equal((await read(customer.id)).kycStatus, 'PENDING', 'the document check takes the sandbox delay');
    await settle();
    const decided = await read(customer.id);
    assert.equal(decided.kycStatus, 'APPROVED');
    assert.equal(decided.kycReason, undefined);
    const verification = await context.platform.services.kyc.latestVerification(customer.id);
    assert.equal(verification?.stage, 'DOCUMENTS');
    assert.equal(verification?.providerReference, `check_${waiting.id}_documents`);
    assert.deepEqual(
      decisions.filter((decision) => decision.customerId === customer.id),
      [{ customerId: customer.id, status: 'APPROVED' }],
    );
  });

  test('submitDocuments on a verification not waiting for documents changes nothing', async () => {
    const customer = await createCustomer(context, merchant.apiKey, completeKyc);
    const verification = await context.platform.services.kyc.latestVerification(customer.id);
    assert.equal(await context.platform.services.kyc.submitDocuments(String(verification?.id), { testDocument: 'passport_genuine' }), 'NOT_WAITING');
    assert.equal((await context.platform.services.kyc.latestVerification(customer.id))?.stage, 'DATA');
  });

  test('step-up with the tampered test document → REJECTED; with the blurred one → review by the merchant', async () => {
    for (const [testDocument, expected] of [['passport_tampered', 'REJECTED'], ['passport_blurred', 'REVIEW']] as const) {
      const customer = await createCustomer(context, merchant.apiKey, { ...completeKyc, lastName: 'Documents' });
      await settle();
      const waiting = await context.platform.services.kyc.awaitingDocuments(customer.id);
      assert.equal(await context.platform.services.kyc.submitDocuments(String(waiting?.id), { testDocument }), 'SUBMITTED');
      assert.equal((await context.platform.services.kyc.stepUpStage(customer.id))?.stage, 'CHECKING');
      await settle();
      const verification = await context.platform.services.kyc.latestVerification(customer.id);
      if (expected === 'REJECTED') {
        assert.equal((await read(customer.id)).kycStatus, 'REJECTED');
        assert.match(String((await read(customer.id)).kycReason), /tampered passport/);
      } else {
        assert.equal((await read(customer.id)).kycStatus, 'PENDING');
        assert.equal(verification?.providerOutcome, 'REVIEW');
      }
      assert.equal(await context.platform.services.kyc.stepUpStage(customer.id), null, 'the step-up is over');
    }
  });

  test('a rejected customer carries the rule as kycReason', async () => {
    const customer = await createCustomer(context, merchant.apiKey, { ...completeKyc, lastName: 'Rejected' });
    await settle();
    const decided = await read(customer.id);
    assert.equal(decided.kycStatus, 'REJECTED');
    assert.equal(decided.kycReason, 'sandbox: last name "Rejected"');
  });

  test('re-verification: an approved customer whose address changes is verified again (a new verification) before the next payout', async () => {
    const customer = await createCustomer(context, merchant.apiKey, completeKyc);
    await settle();
    assert.equal((await read(customer.id)).kycStatus, 'APPROVED');
    const first = await context.platform.services.kyc.latestVerification(customer.id);

    const sameEmail = await context.request({ method: 'POST', url: `/v1/customers/${customer.id}?livemode=false`, apiKey: merchant.apiKey, body: { email: 'new@example.com', address: { city: 'San Francisco' } } });
    assert.equal(assertSucceeded<CustomerData>(sameEmail).kycStatus, 'APPROVED', 'an unchanged identity is not verified again');

    const moved = await context.request({ method: 'POST', url: `/v1/customers/${customer.id}?livemode=false`, apiKey: merchant.apiKey, body: { address: { line1: '2 Market St' } } });
    assert.equal(assertSucceeded<CustomerData>(moved).kycStatus, 'PENDING');
    const second = await context.platform.services.kyc.latestVerification(customer.id);
    assert.notEqual(second?.id, first?.id);
    assert.equal(second?.status, 'PENDING');
    assert.equal((await context.platform.services.kyc.latestVerification(customer.id))?.id, second?.id);
    await settle();
    assert.equal((await read(customer.id)).kycStatus, 'APPROVED');
    assert.equal(decisions.filter((decision) => decision.customerId === customer.id).length, 2);
  });
});
