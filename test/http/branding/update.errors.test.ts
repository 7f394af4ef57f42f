import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { TestContext, TestMerchant } from '../../helpers/context.ts';
import { assertError, snapshotTable } from '../../helpers/assertions.ts';
import { brand, brandingUrl, openBrandingSuite, png } from '../../helpers/branding.ts';

describe('POST /admin/v1/merchants/:merchantId/branding: refused', () => {
  let context: TestContext;
  let merchant: TestMerchant;

  before(async () => {
    ({ context, merchant } = await openBrandingSuite());
    // Branded already, so that a refused update that wrote part of itself would show.
    await brand(context, merchant.id, { displayName: 'Acme Books', brandColor: '#635bff', supportUrl: 'https://acme.example/help' });
  });
  after(async () => context.close());

  const atLimit = Buffer.concat([png, Buffer.alloc(256 * 1024 - png.length)]);
  const cases: Array<[string, Record<string, unknown>, string]> = [
    ['a display name over 100 characters', { displayName: 'x'.repeat(101) }, 'displayName'],
    ['a display name on two lines', { displayName: 'Acme\nBooks' }, 'displayName'],
    ['a colour that is not #rrggbb', { brandColor: 'purple' }, 'brandColor'],
    ['a short colour', { brandColor: '#fff' }, 'brandColor'],
    ['a mid-grey colour (contrast below 4.5:1 with either text colour)', { brandColor: '#787878' }, 'brandColor'],
    ['a support e-mail that is not one', { supportEmail: 'help at acme' }, 'supportEmail'],
    ['a support URL over http', { supportUrl: 'http://acme.example/help' }, 'supportUrl'],
    ['a support URL with javascript:', { supportUrl: 'javascript:alert(1)' }, 'supportUrl'],
    ['a support URL with credentials', { supportUrl: 'https://user:pass@acme.example/' }, 'supportUrl'],
    ['a logo that is not base64', { logo: 'not base64!' }, 'logo'],
    ['a logo that is a GIF', { logo: Buffer.from('GIF89a\x01\x00\x01\x00').toString('base64') }, 'logo'],
    ['an HTML file as a logo', { logo: Buffer.from('<html><script>alert(1)</script></html>').toString('base64') }, 'logo'],
    ['a logo one byte over 256 KiB', { logo: Buffer.concat([atLimit, Buffer.from([0])]).toString('base64') }, 'logo'],
    ['a good field with a bad one', { displayName: 'Fine', brandColor: '#787878' }, 'brandColor'],
    ['an unknown field', { favicon: 'x' }, 'favicon'],
    ['a colour as a number', { brandColor: 635 }, 'brandColor'],
  ];
  for (const [label, body, field] of cases) {
    test(`${label} → 400 WRONG_PARAMETER naming ${field}; nothing is written`, async () => {
      const before = await snapshotTable(context.database, 'merchant_branding');
      const error = assertError(await context.admin('POST', brandingUrl(merchant.id), body), 400, 'WRONG_PARAMETER', field);
      assert.ok(error.errorMessage.startsWith(field), error.errorMessage);
      assert.deepEqual(await snapshotTable(context.database, 'merchant_branding'), before);
    });
  }

  test('an unknown merchant → 404 NOT_FOUND, for reading and writing', async () => {
    const unknown = `mer_${'0'.repeat(36)}`;
    assertError(await context.admin('GET', brandingUrl(unknown)), 404, 'NOT_FOUND');
    assertError(await context.admin('POST', brandingUrl(unknown), { displayName: 'x' }), 404, 'NOT_FOUND');
  });
});
