import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { TestContext, TestMerchant } from '../../helpers/context.ts';
import { brand, openBrandingSuite, png } from '../../helpers/branding.ts';

describe('GET /brand/logos/:file', () => {
  let context: TestContext;
  let merchant: TestMerchant;

  before(async () => {
    ({ context, merchant } = await openBrandingSuite());
  });
  after(async () => context.close());

  test('a logo URL no merchant has, or of the wrong type, answers 404', async () => {
    const current = await brand(context, merchant.id, { logo: png.toString('base64') });
    assert.equal((await context.app.inject({ method: 'GET', url: String(current.logoUrl) })).statusCode, 200);
    assert.equal((await context.app.inject({ method: 'GET', url: String(current.logoUrl).replace(/\.png$/, '.svg') })).statusCode, 404);
    assert.equal((await context.app.inject({ method: 'GET', url: `/brand/logos/${'0'.repeat(64)}.png` })).statusCode, 404);
    assert.equal((await context.app.inject({ method: 'GET', url: '/brand/logos/../../etc/passwd' })).statusCode, 404);
  });
});
