import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { createTestContext, json, type TestContext, type TestMerchant } from '../../helpers/context.ts';
import { assertError, snapshotTable } from '../../helpers/assertions.ts';

interface BrandingBody {
  displayName: string | null;
  brandColor: string | null;
  buttonTextColor: string | null;
  supportEmail: string | null;
  supportUrl: string | null;
  logoUrl: string | null;
  updatedAt: number | null;
}

const evilSvg = Buffer.from(
  '<svg xmlns="http://www.w3.org/2000/svg" xmlns:xlink="http://www.w3.org/1999/xlink" viewBox="0 0 40 10" onload="alert(1)"><script>alert(2)</script>' +
    '<rect width="40" height="10" fill="#635bff"/><use xlink:href="https://evil.example/s.svg#x"/><foreignObject><div xmlns="http://www.w3.org/1999/xhtml">x</div></foreignObject></svg>',
);
const png = Buffer.concat([Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]), Buffer.alloc(64, 7)]);

describe('GET/POST /admin/v1/merchants/:merchantId/branding', () => {
  let context: TestContext;
  let merchant: TestMerchant;
  let other: TestMerchant;
  const url = (merchantId: string) => `/admin/v1/merchants/${merchantId}/branding`;

  before(async () => {
    context = await createTestContext();
    merchant = await context.createMerchant({ name: 'Acme Ltd' });
    other = await context.createMerchant({ name: 'Other Co' });
  });
  after(async () => context.close());

  test('a merchant without branding reads every field as null', async () => {
    const response = await context.admin('GET', url(merchant.id));
    assert.equal(response.statusCode, 200, response.body);
    assert.deepEqual(json<{ data: BrandingBody }>(response).data, { displayName: null, brandColor: null, buttonTextColor: null, supportEmail: null, supportUrl: null, logoUrl: null, updatedAt: null });
  });

  test('sets every field; the colour is normalised and gets its button text colour; the SVG logo is served sanitised from our origin', async () => {
    const response = await context.admin('POST', url(merchant.id), {
      displayName: '  Acme Books  ',
      brandColor: '#635BFF',
      supportEmail: 'Help@Acme.example',
      supportUrl: 'https://acme.example/help',
      logo: evilSvg.toString('base64'),
    });
    assert.equal(response.statusCode, 200, response.body);
    const body = json<{ data: BrandingBody }>(response).data;
    assert.equal(body.displayName, 'Acme Books');
    assert.equal(body.brandColor, '#635bff');
    assert.equal(body.buttonTextColor, '#ffffff');
    assert.equal(body.supportEmail, 'help@acme.example');
    assert.equal(body.supportUrl, 'https://acme.example/help');
    assert.match(String(body.logoUrl), /^\/brand\/logos\/[0-9a-f]{64}\.svg$/);

    const logo = await context.app.inject({ method: 'GET', url: String(body.logoUrl) });
    assert.equal(logo.statusCode, 200);
    assert.equal(logo.headers['content-type'], 'image/svg+xml');
    assert.equal(logo.headers['content-security-policy'], "default-src 'none'; style-src 'unsafe-inline'");
    assert.equal(logo.headers['x-content-type-options'], 'nosniff');
    assert.equal(logo.headers['cache-control'], 'public, max-age=31536000, immutable');
    assert.match(logo.body, /<rect /);
    for (const forbidden of [/<script/i, /onload/i, /evil\.example/, /foreignObject/i]) {
      assert.doesNotMatch(logo.body, forbidden);
    }
  });

  test('what is left out is unchanged; null and "" clear a field; a PNG replaces the logo', async () => {
    const response = await context.admin('POST', url(merchant.id), { supportUrl: null, displayName: '', logo: png.toString('base64') });
    assert.equal(response.statusCode, 200, response.body);
    const body = json<{ data: BrandingBody }>(response).data;
    assert.equal(body.supportUrl, null);
    assert.equal(body.displayName, null);
    assert.equal(body.brandColor, '#635bff');
    assert.match(String(body.logoUrl), /\.png$/);
    const logo = await context.app.inject({ method: 'GET', url: String(body.logoUrl) });
    assert.equal(logo.headers['content-type'], 'image/png');
    assert.deepEqual(logo.rawPayload, png);
  });

  test('a logo URL no merchant has, or of the wrong type, answers 404', async () => {
    const current = json<{ data: BrandingBody }>(await context.admin('GET', url(merchant.id))).data;
    assert.equal((await context.app.inject({ method: 'GET', url: String(current.logoUrl).replace(/\.png$/, '.svg') })).statusCode, 404);
    assert.equal((await context.app.inject({ method: 'GET', url: `/brand/logos/${'0'.repeat(64)}.png` })).statusCode, 404);
    assert.equal((await context.app.inject({ method: 'GET', url: '/brand/logos/../../etc/passwd' })).statusCode, 404);
  });

  test("isolation: another merchant's branding is its own (still empty)", async () => {
    const response = await context.admin('GET', url(other.id));
    assert.equal(json<{ data: BrandingBody }>(response).data.displayName, null);
    assert.equal(json<{ data: BrandingBody }>(response).data.logoUrl, null);
  });

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
      const error = assertError(await context.admin('POST', url(merchant.id), body), 400, 'WRONG_PARAMETER', field);
      assert.ok(error.errorMessage.startsWith(field), error.errorMessage);
      assert.deepEqual(await snapshotTable(context.database, 'merchant_branding'), before);
    });
  }

  test('a logo of exactly 256 KiB is accepted', async () => {
    const response = await context.admin('POST', url(other.id), { logo: atLimit.toString('base64') });
    assert.equal(response.statusCode, 200, response.body);
  });

  test('an unknown merchant → 404 NOT_FOUND, for reading and writing', async () => {
    const unknown = `mer_${'0'.repeat(36)}`;
    assertError(await context.admin('GET', url(unknown)), 404, 'NOT_FOUND');
    assertError(await context.admin('POST', url(unknown), { displayName: 'x' }), 404, 'NOT_FOUND');
  });

  test('changes are recorded in the audit log as adminBranding_update', async () => {
    await context.platform.services.audit.flush();
    const response = await context.admin('GET', `/admin/v1/audit_events?merchantId=${merchant.id}&action=adminBranding_update`);
    assert.equal(response.statusCode, 200, response.body);
    const events = json<{ data: { auditEvents: Array<{ action: string; outcome: string; target: string }> } }>(response).data.auditEvents;
    assert.ok(events.some((event) => event.outcome === 'SUCCEEDED' && event.target === merchant.id));
    assert.ok(events.some((event) => event.outcome === 'FAILED'));
  });
});
