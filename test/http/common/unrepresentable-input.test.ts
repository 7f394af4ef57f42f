import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { and, eq, sql } from 'drizzle-orm';
import { queryRows } from '../../../src/db/client.ts';
import { ledgerAccounts } from '../../../src/db/schema/index.ts';
import { assertError, createCustomer, snapshotTable } from '../../helpers/assertions.ts';
import { createTestContext, json, type TestContext, type TestMerchant } from '../../helpers/context.ts';
import { pageBody } from '../../helpers/payout-pages.ts';
import { pageRequest } from '../../helpers/payment-pages.ts';

/**
 * Values no field can hold: numbers past ±(2^53 − 1) or past a date's range, text that is not
 * well-formed Unicode, and balances that would pass 2^53 − 1. Each is `400 WRONG_PARAMETER` naming
 * the field, never a 500, and nothing is written.
 */
describe('unrepresentable input: extreme numbers and dates, malformed Unicode, balance limit', () => {
  let context: TestContext;
  let merchant: TestMerchant;
  const tables = ['customers', 'payout_pages', 'payment_pages', 'ledger_transactions', 'ledger_entries', 'jobs', 'events'];
  const snapshot = async () => Object.fromEntries(await Promise.all(tables.map(async (table) => [table, await snapshotTable(context.database, table)] as const)));

  before(async () => {
    context = await createTestContext();
    merchant = await context.createMerchant();
  });
  after(async () => context.close());

  const extremes = [9_000_000_000_000_000, 2 ** 53, -(2 ** 53), 1e308, -1e308, 8_640_000_000_000_001];

  async function refuses(url: string, body: unknown, field: string, message?: RegExp): Promise<void> {
    const before = await snapshot();
    const response = await context.request({ method: 'POST', url, apiKey: merchant.apiKey, body });
    const error = assertError(response, 400, 'WRONG_PARAMETER', message);
    assert.match(error.errorMessage, new RegExp(`^${field.replace(/[.[\]]/g, '\\$&')} `), `${url}: names ${field}: ${error.errorMessage}`);
    assert.deepEqual(await snapshot(), before, `${url} ${field}: nothing written`);
  }

  test('date fields out of a date range (9e15, 2^53, ±1e308) → 400 naming the field, on every create that takes one', async () => {
    for (const value of extremes) {
      await refuses('/v1/payout_pages?livemode=false', pageBody({ expiresAt: value }), 'expiresAt');
      await refuses('/v1/payment_pages?livemode=false', pageRequest({ expiresAt: value }), 'expiresAt');
      await refuses('/v1/customers?livemode=false', { referenceId: `ref-${value}`, signupAt: value }, 'signupAt');
    }
  });

  test('integer fields past 2^53 − 1 → 400 naming the field, with the range in the message', async () => {
    for (const value of [2 ** 53, -(2 ** 53), 1e308, -1e308]) {
      await refuses('/v1/payout_pages?livemode=false', pageBody({ amount: value }), 'amount', /must be (between|at (most|least))/);
      await refuses('/v1/payment_pages?livemode=false', pageRequest({ amount: value }), 'amount', /must be (between|at (most|least))/);
      await refuses('/v1/test_helpers/balance/fund?livemode=false', { amount: value, currency: 'USD' }, 'amount', /must be (between|at (most|least))/);
    }
    // Nested: a metadata value is text, but a nested number past the range is named by its path.
    await refuses('/v1/payout_pages?livemode=false', pageBody({ metadata: { order: 2 ** 60 } }), 'metadata.order');
  });

  test('lone UTF-16 surrogates and U+FFFE/U+FFFF in any string field → 400 naming the field; a real surrogate pair is fine', async () => {
    for (const bad of ['\uD800', 'abc\uDC00', 'x\uDBFFy', '\uFFFE', 'end\uFFFF']) {
      await refuses('/v1/customers?livemode=false', { referenceId: `ref${bad}` }, 'referenceId', /well-formed Unicode/);
      await refuses('/v1/payout_pages?livemode=false', pageBody({ clientReferenceId: `page${bad}` }), 'clientReferenceId', /well-formed Unicode/);
      await refuses('/v1/payout_pages?livemode=false', pageBody({ metadata: { note: bad } }), 'metadata.note', /well-formed Unicode/);
      await refuses('/v1/payment_pages?livemode=false', pageRequest({ metadata: { [`key${bad}`]: 'x' } }), 'metadata', /well-formed Unicode/);
    }
    const emoji = await createCustomer(context, merchant.apiKey, { referenceId: `ref-\u{1F600}-${Date.now()}` });
    assert.match(emoji.referenceId, /^ref-\u{1F600}-/u);
  });

  test('a deeply nested body (found by the fuzzer: the check once recursed) → 400, never a 500', async () => {
    for (const depth of [1_000, 100_000]) {
      const response = await context.app.inject({
        method: 'POST',
        url: '/v1/customers?livemode=false',
        headers: { authorization: `Basic ${Buffer.from(`${merchant.apiKey}:`).toString('base64')}`, 'content-type': 'application/json' },
        payload: `{"referenceId":${'['.repeat(depth)}"\\uD800"${']'.repeat(depth)}}`,
      });
      assertError(response, 400, 'WRONG_PARAMETER', /^referenceId(\[0\])+ must be well-formed Unicode text/);
    }
  });

  test('a balance that would pass 2^53 − 1 minor units is refused (WRONG_PARAMETER naming amount); the balance and ledger are unchanged', async () => {
    const funded = await context.request({ method: 'POST', url: '/v1/test_helpers/balance/fund?livemode=false', apiKey: merchant.apiKey, body: { amount: 1, currency: 'USD' } });
    assert.equal(funded.statusCode, 200, funded.body);
    // Bring the account close to the limit (setting up state a real merchant would need ~9,000 fundings for).
    const near = Number.MAX_SAFE_INTEGER - 100;
    const owner = and(eq(ledgerAccounts.merchantId, merchant.id), eq(ledgerAccounts.livemode, false), eq(ledgerAccounts.currency, 'USD'));
    await context.database.db.update(ledgerAccounts).set({ balance: near }).where(and(owner, eq(ledgerAccounts.kind, 'available')));
    await context.database.db.update(ledgerAccounts).set({ balance: -near }).where(and(owner, eq(ledgerAccounts.kind, 'external')));
    const before = await snapshot();
    const refused = await context.request({ method: 'POST', url: '/v1/test_helpers/balance/fund?livemode=false', apiKey: merchant.apiKey, body: { amount: 101, currency: 'USD' } });
    const error = assertError(refused, 400, 'WRONG_PARAMETER', /^amount would take the .* balance beyond 9007199254740991 minor units/);
    assert.ok(!('field' in error));
    assert.deepEqual(await snapshot(), before, 'no ledger transaction or entry was written');
    const [available] = await context.database.db.select({ balance: ledgerAccounts.balance }).from(ledgerAccounts).where(and(owner, eq(ledgerAccounts.kind, 'available')));
    assert.equal(available?.balance, near);
    // Up to the limit exactly is fine, and reads back exactly.
    const exact = await context.request({ method: 'POST', url: '/v1/test_helpers/balance/fund?livemode=false', apiKey: merchant.apiKey, body: { amount: 100, currency: 'USD' } });
    assert.equal(exact.statusCode, 200, exact.body);
    assert.equal(json<{ data: { available: number } }>(exact).data.available, Number.MAX_SAFE_INTEGER);
    const beyond = await queryRows<{ total: number }>(context.database.db, sql`select count(*)::int as total from ledger_accounts where abs(balance) > ${Number.MAX_SAFE_INTEGER}::bigint`);
    assert.equal(beyond[0]?.total, 0);
  });
});
