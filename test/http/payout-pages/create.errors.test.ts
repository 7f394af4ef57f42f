import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { sql } from 'drizzle-orm';
import { json, type TestContext, type TestMerchant } from '../../helpers/context.ts';
import { balanceOf } from '../../helpers/ledger.ts';
import { closePayoutPageSuite, createPage, errorCodeOf, openPayoutPageCreateSuite, pageBody, uniqueReference } from '../../helpers/payout-pages.ts';
import { queryRows } from '../../../src/db/client.ts';

const dayMs = 24 * 60 * 60 * 1000;

describe('POST /v1/payout_pages: refusals', () => {
  let context: TestContext;
  let merchant: TestMerchant;
  let other: TestMerchant;
  let live: TestMerchant;

  before(async () => ({ context, merchant, other, live } = await openPayoutPageCreateSuite()));
  after(async () => closePayoutPageSuite(context));

  test('validation: each rule answers 400 WRONG_PARAMETER naming the field', async () => {
    const now = context.clock.now().getTime();
    const cases: Array<[Record<string, unknown>, RegExp]> = [
      [{ amount: 0 }, /^amount must be an integer between 1 and 100000000$/],
      [{ amount: 100_000_001 }, /^amount must be an integer between 1 and 100000000$/],
      [{ amount: '100' }, /^amount must be an integer/],
      [{ amount: 10.5 }, /^amount must be an integer/],
      [{ fundingCurrency: 'EUR' }, /^fundingCurrency must be one of USDC, USD/],
      [{ releaseMethod: 'LATER' }, /^releaseMethod must be one of AUTOMATIC, MANUAL/],
      [{ clientReferenceId: '' }, /^clientReferenceId must be at least 1 character/],
      [{ clientReferenceId: 'x'.repeat(256) }, /^clientReferenceId must be at most 255 characters/],
      [{ customer: { referenceId: 'c' } }, /^customer.email is required/],
      [{ customer: { email: 'a@example.com' } }, /^customer.referenceId is required/],
      [{ customer: { referenceId: 'c', email: 'not-an-email' } }, /^customer.email must be a valid e-mail/],
      [{ customer: { referenceId: 'c', email: 'a@example.com', name: 'x' } }, /^customer.name is not a recognised field/],
      [{ successReturnUrl: 'ftp://merchant.example/' }, /^successReturnUrl must be an absolute http or https URL/],
      [{ failureReturnUrl: 'javascript:alert(1)' }, /^failureReturnUrl must be an absolute http or https URL/],
      [{ successReturnUrl: '/relative' }, /^successReturnUrl must be an absolute http or https URL/],
      [{ expiresAt: now - 1 }, /^expiresAt must be in the future and at most 30 days from now/],
      [{ expiresAt: now + 30 * dayMs + 1 }, /^expiresAt must be in the future and at most 30 days from now/],
      [{ metadata: Object.fromEntries(Array.from({ length: 21 }, (_, index) => [`k${index}`, 'v'])) }, /^metadata must have at most 20 entries/],
      [{ metadata: { ['k'.repeat(41)]: 'v' } }, /^metadata keys must be 1-40 characters/],
      [{ metadata: { key: 5 } }, /^metadata.key must be a string/],
      [{ surprise: true }, /^surprise is not a recognised field/],
    ];
    for (const [override, message] of cases) {
      const response = await context.request({ method: 'POST', url: '/v1/payout_pages?livemode=false', apiKey: merchant.apiKey, body: pageBody(override) });
      assert.equal(response.statusCode, 400, `${JSON.stringify(override)}: ${response.body}`);
      assert.equal(errorCodeOf(response), 'WRONG_PARAMETER');
      assert.match(String(json(response).errorMessage), message, JSON.stringify(override));
    }
    const missing = { ...pageBody() };
    delete missing.releaseMethod;
    const response = await context.request({ method: 'POST', url: '/v1/payout_pages?livemode=false', apiKey: merchant.apiKey, body: missing });
    assert.equal(json(response).errorMessage, 'releaseMethod is required');
    assert.equal(
      (await createPage(context, merchant, { expiresAt: now + 30 * dayMs })).expiresAt,
      now + 30 * dayMs,
      'exactly 30 days is allowed',
    );
  });

  test('clientReferenceId is unique per merchant and mode: 409 DUPLICATE_CLIENT_REFERENCE_ID, nothing reserved twice', async () => {
    const clientReferenceId = uniqueReference('dup');
    await createPage(context, merchant, { clientReferenceId });
    const balance = await balanceOf(context.database, merchant.id, false, 'USDC');
    const duplicate = await context.request({ method: 'POST', url: '/v1/payout_pages?livemode=false', apiKey: merchant.apiKey, body: pageBody({ clientReferenceId }) });
    assert.equal(duplicate.statusCode, 409);
    assert.equal(errorCodeOf(duplicate), 'DUPLICATE_CLIENT_REFERENCE_ID');
    assert.deepEqual(await balanceOf(context.database, merchant.id, false, 'USDC'), balance);
    // Another merchant, or the other mode, may use the same reference.
    await createPage(context, other, { clientReferenceId });
    await context.admin('POST', `/admin/v1/merchants/${live.id}/balance/credit`, { amount: 1_000_000, currency: 'USDC' });
    await createPage(context, live, { clientReferenceId }, '?livemode=false');
    const liveCreated = await createPage(context, live, { clientReferenceId }, '');
    assert.equal(liveCreated.merchant.livemode, true);
  });

  test('409 INSUFFICIENT_FUNDS when the available balance cannot cover the amount; nothing is created', async () => {
    const poor = await context.createMerchant();
    await createPage(context, poor, { amount: 100_000_000, fundingCurrency: 'USD' });
    const refused = await context.request({ method: 'POST', url: '/v1/payout_pages?livemode=false', apiKey: poor.apiKey, body: pageBody({ amount: 1, fundingCurrency: 'USD' }) });
    assert.equal(refused.statusCode, 409);
    assert.equal(errorCodeOf(refused), 'INSUFFICIENT_FUNDS');
    const [count] = await queryRows<{ count: number }>(context.database.db, sql`select count(*)::int as count from payout_pages where merchant_id = ${poor.id}`);
    assert.equal(count?.count, 1);
    // USDC is a separate balance.
    await createPage(context, poor, { amount: 1, fundingCurrency: 'USDC' });
    // Live starts at zero: credit first.
    const liveRefused = await context.request({ method: 'POST', url: '/v1/payout_pages?livemode=true', apiKey: (await context.createMerchant({ live: true })).apiKey, body: pageBody() });
    assert.equal(errorCodeOf(liveRefused), 'INSUFFICIENT_FUNDS');
  });
});
