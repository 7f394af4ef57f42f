import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { eq } from 'drizzle-orm';
import { type TestContext, type TestMerchant } from '../../helpers/context.ts';
import { closePayoutPageSuite, errorCodeOf, openPayoutPageCreateSuite, pageBody, uniqueReference } from '../../helpers/payout-pages.ts';
import { customers, payoutPages } from '../../../src/db/schema/index.ts';

describe('POST /v1/payout_pages under concurrency', () => {
  let context: TestContext;
  let merchant: TestMerchant;

  before(async () => ({ context, merchant } = await openPayoutPageCreateSuite()));
  after(async () => closePayoutPageSuite(context));

  test('concurrent creates with one clientReferenceId (and one new customer): exactly one wins', async () => {
    const clientReferenceId = uniqueReference('race');
    const referenceId = uniqueReference('race-customer');
    const responses = await Promise.all(
      Array.from({ length: 12 }, () =>
        context.request({ method: 'POST', url: '/v1/payout_pages?livemode=false', apiKey: merchant.apiKey, body: pageBody({ clientReferenceId, customer: { referenceId, email: 'race@example.com' } }) }),
      ),
    );
    const codes = responses.map((response) => (response.statusCode === 200 ? 'OK' : errorCodeOf(response))).sort();
    assert.deepEqual(codes, [...Array<string>(11).fill('DUPLICATE_CLIENT_REFERENCE_ID'), 'OK']);
    const rows = await context.database.db.select().from(customers).where(eq(customers.referenceId, referenceId));
    assert.equal(rows.length, 1, 'one customer');
    const pages = await context.database.db.select().from(payoutPages).where(eq(payoutPages.clientReferenceId, clientReferenceId));
    assert.equal(pages.length, 1);
  });
});
