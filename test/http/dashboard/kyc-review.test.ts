import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { eq } from 'drizzle-orm';
import { createTestContext, type TestContext, type TestMerchant } from '../../helpers/context.ts';
import { assertSucceeded, completeKyc, createCustomer, type CustomerData } from '../../helpers/assertions.ts';
import { advanceAndDrain } from '../../helpers/payout-pages.ts';
import { kycReviews } from '../../../src/db/schema/index.ts';
import { signedInClient, textOf, type DashboardClient } from './client.ts';

describe('dashboard: the KYC review queue and decision', () => {
  let context: TestContext;
  let merchant: TestMerchant;
  let client: DashboardClient;

  before(async () => {
    context = await createTestContext();
    merchant = await context.createMerchant({ name: 'Acme Sails' });
    client = await signedInClient(context, merchant);
  });
  after(async () => context.close());

  test('a customer in review is listed, shows the provider breakdown, and is approved with a reason (audited as the dashboard user)', async () => {
    const customer = await createCustomer(context, merchant.apiKey, { ...completeKyc, lastName: 'Review' });
    await advanceAndDrain(context);
    const list = textOf((await client.get('/dashboard/sandbox/customers')).body);
    assert.match(list, /Waiting for your review \(1\)/);
    assert.match(list, /sandbox-kyc sandbox: last name "Review" needs a manual review sandbox_rules: review/);

    const detail = await client.get(`/dashboard/sandbox/customers/${customer.id}`);
    assert.match(textOf(detail.body), /Review the identity verification/);
    assert.match(detail.body, /name="decision" value="APPROVED"/);

    const missingReason = await client.post(`/dashboard/sandbox/customers/${customer.id}/kyc-review`, { decision: 'APPROVED', reason: '' });
    assert.equal(missingReason.headers.location, `/dashboard/sandbox/customers/${customer.id}?error=WRONG_PARAMETER`);

    const approved = await client.post(`/dashboard/sandbox/customers/${customer.id}/kyc-review`, { decision: 'APPROVED', reason: 'Called the customer' });
    assert.equal(approved.statusCode, 303);
    assert.equal(approved.headers.location, `/dashboard/sandbox/customers/${customer.id}?notice=kyc-approved`);
    const read = assertSucceeded<CustomerData>(await context.request({ method: 'GET', url: `/v1/customers/${customer.id}`, apiKey: merchant.apiKey }));
    assert.equal(read.kycStatus, 'APPROVED');
    const [audit] = await context.database.db.select().from(kycReviews).where(eq(kycReviews.customerId, customer.id));
    assert.match(String(audit?.actor), /^dashboard:usr_/);
    assert.equal(audit?.reason, 'Called the customer');
    const after = textOf((await client.get(`/dashboard/sandbox/customers/${customer.id}?notice=kyc-approved`)).body);
    assert.match(after, /The identity was approved/);
    assert.doesNotMatch(after, /Review the identity verification/);

    const again = await client.post(`/dashboard/sandbox/customers/${customer.id}/kyc-review`, { decision: 'REJECTED', reason: 'again' });
    assert.equal(again.headers.location, `/dashboard/sandbox/customers/${customer.id}?error=INVALID_STATE`);
    assert.doesNotMatch(textOf((await client.get('/dashboard/sandbox/customers')).body), /Waiting for your review/);
  });
});
