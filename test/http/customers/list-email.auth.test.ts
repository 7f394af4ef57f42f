import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { createKeyRing, generateKeySpec, parseKeySpec } from '../../../src/crypto/keyring.ts';
import type { TestContext, TestMerchant } from '../../helpers/context.ts';
import { ada, byEmailCall, openEmailListSuite } from '../../helpers/customer-email.ts';

describe('GET /v1/customers?email=: one merchant', () => {
  let context: TestContext;
  let merchant: TestMerchant;
  let other: TestMerchant;
  let sandboxAda: string;
  const byEmail = byEmailCall(() => ({ context, merchant }));

  before(async () => {
    ({ context, merchant, other, sandboxAda } = await openEmailListSuite(createKeyRing(parseKeySpec(generateKeySpec('lookold')))));
  });
  after(async () => context.close());

  test('never another merchant’s: the same address finds only its own customer', async () => {
    assert.equal((await byEmail(ada, '', context, other.apiKey)).length, 1);
    assert.ok(!(await byEmail(ada, '', context, other.apiKey)).includes(sandboxAda));
  });
});
