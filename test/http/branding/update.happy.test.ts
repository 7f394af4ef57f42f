import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { json, type TestContext, type TestMerchant } from '../../helpers/context.ts';
import { assertError } from '../../helpers/assertions.ts';
import { brand, brandingUrl, evilSvg, openBrandingSuite, png } from '../../helpers/branding.ts';

describe('POST /admin/v1/merchants/:merchantId/branding', () => {
  let context: TestContext;
  let merchant: TestMerchant;
  let other: TestMerchant;

  before(async () => {
    ({ context, merchant, other } = await openBrandingSuite());
  });
  after(async () => context.close());

  test('sets every field; the colour is normalised and gets its button text colour; the SVG logo is served sanitised from our origin', async () => {
    const body = await brand(context, merchant.id, {
      displayName: '  Acme Books  ',
      brandColor: '#635BFF',
      supportEmail: 'Help@Acme.example',
      supportUrl: 'https://acme.example/help',
      logo: evilSvg.toString('base64'),
    });
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
    await brand(context, merchant.id, { displayName: 'Acme Books', brandColor: '#635bff', supportUrl: 'https://acme.example/help' });
    const body = await brand(context, merchant.id, { supportUrl: null, displayName: '', logo: png.toString('base64') });
    assert.equal(body.supportUrl, null);
    assert.equal(body.displayName, null);
    assert.equal(body.brandColor, '#635bff');
    assert.match(String(body.logoUrl), /\.png$/);
    const logo = await context.app.inject({ method: 'GET', url: String(body.logoUrl) });
    assert.equal(logo.headers['content-type'], 'image/png');
    assert.deepEqual(logo.rawPayload, png);
  });

  test('a logo of exactly 256 KiB is accepted', async () => {
    const atLimit = Buffer.concat([png, Buffer.alloc(256 * 1024 - png.length)]);
    const response = await context.admin('POST', brandingUrl(other.id), { logo: atLimit.toString('base64') });
    assert.equal(response.statusCode, 200, response.body);
  });

  test('changes are recorded in the audit log as adminBranding_update', async () => {
    await brand(context, merchant.id, { displayName: 'Acme Books' });
    assertError(await context.admin('POST', brandingUrl(merchant.id), { brandColor: 'purple' }), 400, 'WRONG_PARAMETER', 'brandColor');
    await context.platform.services.audit.flush();
    const response = await context.admin('GET', `/admin/v1/audit_events?merchantId=${merchant.id}&action=adminBranding_update`);
    assert.equal(response.statusCode, 200, response.body);
    const events = json<{ data: { auditEvents: Array<{ action: string; outcome: string; target: string }> } }>(response).data.auditEvents;
    assert.ok(events.some((event) => event.outcome === 'SUCCEEDED' && event.target === merchant.id));
    assert.ok(events.some((event) => event.outcome === 'FAILED'));
  });
});
