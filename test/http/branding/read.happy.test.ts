import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { json, type TestContext, type TestMerchant } from '../../helpers/context.ts';
import { brand, brandingUrl, openBrandingSuite, type BrandingBody } from '../../helpers/branding.ts';

describe('GET /admin/v1/merchants/:merchantId/branding', () => {
  let context: TestContext;
  let merchant: TestMerchant;
  let other: TestMerchant;

  before(async () => {
    ({ context, merchant, other } = await openBrandingSuite());
  });
  after(async () => context.close());

  test('a merchant without branding reads every field as null', async () => {
    const response = await context.admin('GET', brandingUrl(merchant.id));
    assert.equal(response.statusCode, 200, response.body);
    assert.deepEqual(json<{ data: BrandingBody }>(response).data, { displayName: null, brandColor: null, buttonTextColor: null, supportEmail: null, supportUrl: null, logoUrl: null, updatedAt: null });
  });

  test("isolation: another merchant's branding is its own (still empty)", async () => {
    await brand(context, merchant.id, { displayName: 'Acme Books' });
    const response = await context.admin('GET', brandingUrl(other.id));
    assert.equal(json<{ data: BrandingBody }>(response).data.displayName, null);
    assert.equal(json<{ data: BrandingBody }>(response).data.logoUrl, null);
  });
});
