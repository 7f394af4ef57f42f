import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { createKeyRing, generateKeySpec, parseKeySpec } from '../../../src/crypto/keyring.ts';
import { json, type TestContext, type TestMerchant } from '../../helpers/context.ts';
import { assertError } from '../../helpers/assertions.ts';
import { ada, byEmailCall, openEmailListSuite, type CustomerPage as Page } from '../../helpers/customer-email.ts';

describe('GET /v1/customers?email=: refused', () => {
  let context: TestContext;
  let merchant: TestMerchant;
  let sandboxAda: string;
  const byEmail = byEmailCall(() => ({ context, merchant }));

  before(async () => {
    ({ context, merchant, sandboxAda } = await openEmailListSuite(createKeyRing(parseKeySpec(generateKeySpec('lookold')))));
  });
  after(async () => context.close());

  test('a cursor is bound to the address it was issued for; a bad address → 400 WRONG_PARAMETER naming email', async () => {
    const first = json<{ data: Page }>(await context.request({ method: 'GET', url: `/v1/customers?email=${encodeURIComponent(ada)}&limit=1`, apiKey: merchant.apiKey })).data;
    assert.equal(first.hasMore, true);
    const cursor = encodeURIComponent(first.nextCursor ?? '');
    assert.deepEqual(await byEmail(ada, `&startingAfter=${cursor}`), [sandboxAda]);
    assertError(await context.request({ method: 'GET', url: `/v1/customers?email=grace.hopper%40example.com&startingAfter=${cursor}`, apiKey: merchant.apiKey }), 400, 'WRONG_PARAMETER', 'startingAfter');
    assertError(await context.request({ method: 'GET', url: `/v1/customers?startingAfter=${cursor}`, apiKey: merchant.apiKey }), 400, 'WRONG_PARAMETER', 'startingAfter');
    for (const bad of ['not-an-address', 'a@b', `${'a'.repeat(250)}@example.com`]) {
      assertError(await context.request({ method: 'GET', url: `/v1/customers?email=${encodeURIComponent(bad)}`, apiKey: merchant.apiKey }), 400, 'WRONG_PARAMETER', 'email');
    }
  });
});
