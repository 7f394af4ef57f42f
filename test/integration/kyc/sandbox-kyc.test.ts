import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { createTestContext, type TestContext, type TestMerchant } from '../../helpers/context.ts';
import { assertSucceeded, completeKyc, createCustomer, type CustomerData } from '../../helpers/assertions.ts';
import { jobRows } from '../../helpers/jobs.ts';
import { kycVerifyQueue, noLiveProviderReason } from '../../../src/modules/kyc/service.ts';

const delayMs = 5_000;

describe('KYC with the sandbox provider (docs/API.md §6)', () => {
  let context: TestContext;
  let merchant: TestMerchant;
  const decisions: Array<{ customerId: string; status: string }> = [];

  before(async () => {
    context = await createTestContext({ env: { SANDBOX_KYC_DELAY_MS: String(delayMs) } });
    merchant = await context.createMerchant({ live: true });
    context.platform.services.kyc.onDecision(async (_tx, decision) => {
      decisions.push({ customerId: decision.customerId, status: decision.status });
    });
  });
  after(async () => context.close());

  const read = async (id: string) => assertSucceeded<CustomerData>(await context.request({ method: 'GET', url: `/v1/customers/${id}`, apiKey: merchant.apiKey }));

  test('complete data at create → PENDING, then APPROVED exactly SANDBOX_KYC_DELAY_MS later', async () => {
    const customer = await createCustomer(context, merchant.apiKey, completeKyc);
    assert.equal(customer.kycStatus, 'PENDING');
    const verification = await context.platform.services.kyc.latestVerification(customer.id);
    assert.equal(verification?.status, 'PENDING');
    assert.equal(verification?.provider, 'sandbox-kyc');
    await context.drainJobs();
    context.clock.advance(delayMs - 1);
    await context.drainJobs();
    assert.equal((await read(customer.id)).kycStatus, 'PENDING', 'not before the configured delay');
    context.clock.advance(1);
    await context.drainJobs();
    assert.equal((await read(customer.id)).kycStatus, 'APPROVED');
    const decided = await context.platform.services.kyc.latestVerification(customer.id);
    assert.equal(decided?.status, 'APPROVED');
    assert.equal(decided?.decidedAt?.getTime(), context.clock.now().getTime());
    assert.deepEqual(
      decisions.filter((decision) => decision.customerId === customer.id),
      [{ customerId: customer.id, status: 'APPROVED' }],
      'listeners (payout pages) hear the decision once',
    );
  });

  async function decide(body: Record<string, unknown>): Promise<CustomerData> {
    const customer = await createCustomer(context, merchant.apiKey, body);
    assert.equal(customer.kycStatus, 'PENDING');
    await context.drainJobs();
    context.clock.advance(delayMs);
    await context.drainJobs();
    return read(customer.id);
  }

  test('lastName "Rejected" → REJECTED, with the reason recorded', async () => {
    const customer = await decide({ ...completeKyc, lastName: 'Rejected' });
    assert.equal(customer.kycStatus, 'REJECTED');
    const verification = await context.platform.services.kyc.latestVerification(customer.id);
    assert.equal(verification?.status, 'REJECTED');
    assert.match(String(verification?.reason), /last name/);
  });

  test('dateOfBirth 1901-01-01 → REJECTED', async () => {
    const customer = await decide({ ...completeKyc, dateOfBirth: '1901-01-01' });
    assert.equal(customer.kycStatus, 'REJECTED');
    assert.match(String((await context.platform.services.kyc.latestVerification(customer.id))?.reason), /date of birth/);
  });

  test('a near miss ("rejected" in lower case, another old date) is APPROVED', async () => {
    assert.equal((await decide({ ...completeKyc, lastName: 'rejected' })).kycStatus, 'APPROVED');
    assert.equal((await decide({ ...completeKyc, dateOfBirth: '1901-01-02' })).kycStatus, 'APPROVED');
  });

  test('partial data → NOT_STARTED: no verification, no job', async () => {
    const jobsBefore = (await jobRows(context.database, kycVerifyQueue)).length;
    const partials: Array<Record<string, unknown>> = [
      { firstName: 'Only' },
      { ...completeKyc, phoneNumber: undefined },
      { ...completeKyc, dateOfBirth: undefined },
      { ...completeKyc, address: { ...completeKyc.address, state: undefined } },
      { ...completeKyc, address: { ...completeKyc.address, postalCode: undefined } },
      { ...completeKyc, address: undefined },
    ];
    for (const body of partials) {
      const customer = await createCustomer(context, merchant.apiKey, body);
      assert.equal(customer.kycStatus, 'NOT_STARTED', JSON.stringify(body));
      assert.equal(await context.platform.services.kyc.latestVerification(customer.id), null);
    }
    assert.equal((await jobRows(context.database, kycVerifyQueue)).length, jobsBefore);
  });

  test('outside the US the state is not needed', async () => {
    const customer = await createCustomer(context, merchant.apiKey, {
      ...completeKyc,
      phoneNumber: '+44 20 7946 0958',
      address: { line1: '10 Downing St', city: 'London', postalCode: 'SW1A 2AA', country: 'GB' },
    });
    assert.equal(customer.kycStatus, 'PENDING');
  });

  test('a live customer with complete data stays PENDING: no live provider is configured, and the reason says so', async () => {
    const jobsBefore = (await jobRows(context.database, kycVerifyQueue)).length;
    const customer = await createCustomer(context, merchant.apiKey, completeKyc, true);
    assert.equal(customer.livemode, true);
    assert.equal(customer.kycStatus, 'PENDING');
    const verification = await context.platform.services.kyc.latestVerification(customer.id);
    assert.equal(verification?.status, 'PENDING');
    assert.equal(verification?.reason, noLiveProviderReason);
    assert.equal(verification?.provider, 'none');
    assert.equal((await jobRows(context.database, kycVerifyQueue)).length, jobsBefore, 'nothing is submitted anywhere');
    await context.drainJobs();
    context.clock.advance(delayMs * 10);
    await context.drainJobs();
    assert.equal((await read(customer.id)).kycStatus, 'PENDING');
    assert.equal(decisions.some((decision) => decision.customerId === customer.id), false);
  });

  test('the verification is submitted once even when its job is retried (provider records are per verification)', async () => {
    const customer = await createCustomer(context, merchant.apiKey, completeKyc);
    const verification = await context.platform.services.kyc.latestVerification(customer.id);
    await context.drainJobs();
    const [job] = (await jobRows(context.database, kycVerifyQueue)).filter((row) => row.dedupeKey === `kyc.verify:${String(verification?.id)}`);
    assert.equal(job?.status, 'pending', 'polling for the decision');
    assert.equal(job?.attempts, 0, 'polling does not use up attempts');
    context.clock.advance(delayMs);
    await context.drainJobs();
    assert.equal((await read(customer.id)).kycStatus, 'APPROVED');
  });
});
