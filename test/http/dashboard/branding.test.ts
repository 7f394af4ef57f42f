import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { LightMyRequestResponse } from 'fastify';
import { createTestContext, json, type TestContext, type TestMerchant } from '../../helpers/context.ts';
import { snapshotTable } from '../../helpers/assertions.ts';
import { signedInClient, textOf, type DashboardClient } from './client.ts';

const png = Buffer.concat([Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]), Buffer.alloc(48, 9)]);
const brandingPath = '/dashboard/sandbox/settings/branding';

/** Posts the branding form as a browser does: multipart/form-data, the logo as a file part. */
async function postBranding(
  context: TestContext,
  client: DashboardClient,
  fields: Record<string, string>,
  logo?: { bytes: Buffer; name: string; type: string },
  options: { withCsrf: boolean } = { withCsrf: true },
): Promise<LightMyRequestResponse> {
  const form = new FormData();
  if (options.withCsrf) {
    form.set('_csrf', client.csrfToken());
  }
  for (const [name, value] of Object.entries(fields)) {
    form.set(name, value);
  }
  form.set('logo', logo ? new Blob([new Uint8Array(logo.bytes)], { type: logo.type }) : new Blob([], { type: 'application/octet-stream' }), logo?.name ?? '');
  const request = new Request('http://dashboard.test/', { method: 'POST', body: form });
  const response = await context.app.inject({
    method: 'POST',
    url: brandingPath,
    headers: { cookie: [...client.cookies].map(([name, value]) => `${name}=${value}`).join('; '), 'content-type': String(request.headers.get('content-type')) },
    payload: Buffer.from(await request.arrayBuffer()),
  });
  if (String(response.headers['content-type'] ?? '').startsWith('text/html')) {
    client.lastPage = response.body;
  }
  return response;
}

describe('dashboard Settings → Branding', () => {
  let context: TestContext;
  let merchant: TestMerchant;
  let other: TestMerchant;
  let client: DashboardClient;

  before(async () => {
    context = await createTestContext();
    merchant = await context.createMerchant({ name: 'Acme Ltd' });
    other = await context.createMerchant({ name: 'Other Co' });
    client = await signedInClient(context, merchant);
  });
  after(async () => context.close());

  test('the screen shows the form with its current values and a preview', async () => {
    const response = await client.get(brandingPath);
    assert.equal(response.statusCode, 200);
    const text = textOf(response.body);
    assert.match(text, /Branding/);
    assert.match(response.body, /enctype="multipart\/form-data"/);
    assert.match(response.body, /id="preview-button"/);
    assert.match(response.body, /<link rel="icon" href="\/favicon\.svg"/, "the dashboard uses Paysail's icon");
  });

  test('saving sets every field and the uploaded logo (type from its bytes, not its name); recorded as branding_update', async () => {
    await client.get(brandingPath);
    const response = await postBranding(context, client, { displayName: 'Acme Books', brandColor: '#0F766E', supportEmail: 'help@acme.example', supportUrl: 'https://acme.example/help' }, { bytes: png, name: 'logo.svg', type: 'image/svg+xml' });
    assert.equal(response.statusCode, 303, response.body);
    assert.equal(response.headers.location, `${brandingPath}?notice=branding-saved`);
    const saved = json<{ data: Record<string, string> }>(await context.admin('GET', `/admin/v1/merchants/${merchant.id}/branding`)).data;
    assert.equal(saved.displayName, 'Acme Books');
    assert.equal(saved.brandColor, '#0f766e');
    assert.equal(saved.supportEmail, 'help@acme.example');
    assert.match(String(saved.logoUrl), /\.png$/);
    const page = await client.get(`${brandingPath}?notice=branding-saved`);
    assert.match(textOf(page.body), /Your branding was saved/);
    assert.ok(page.body.includes(`src="${saved.logoUrl}"`), 'the current logo is shown');
    await context.platform.services.audit.flush();
    const audit = json<{ data: { auditEvents: Array<{ action: string; outcome: string }> } }>(await context.admin('GET', `/admin/v1/audit_events?merchantId=${merchant.id}&action=branding_update`)).data.auditEvents;
    assert.ok(audit.some((event) => event.outcome === 'SUCCEEDED'));
  });

  test('a refused colour is shown beside its field, the typed values stay, and nothing is saved', async () => {
    await client.get(brandingPath);
    const before = await snapshotTable(context.database, 'merchant_branding');
    const response = await postBranding(context, client, { displayName: 'Changed Name', brandColor: '#787878', supportEmail: '', supportUrl: '' });
    assert.equal(response.statusCode, 400);
    assert.match(response.body, /id="brandColor-error"/);
    assert.match(textOf(response.body), /Nothing was saved/);
    assert.match(response.body, /value="Changed Name"/);
    assert.deepEqual(await snapshotTable(context.database, 'merchant_branding'), before);
  });

  test('a file that is not PNG, JPEG or SVG is refused beside the logo field', async () => {
    await client.get(brandingPath);
    const response = await postBranding(context, client, { displayName: 'Acme Books' }, { bytes: Buffer.from('GIF89a\x01\x00'), name: 'logo.png', type: 'image/png' });
    assert.equal(response.statusCode, 400);
    assert.match(response.body, /id="logo-error"/);
  });

  test('a logo over 256 KiB is refused beside its field, and nothing is saved', async () => {
    await client.get(brandingPath);
    const before = await snapshotTable(context.database, 'merchant_branding');
    const big = Buffer.concat([png, Buffer.alloc(300 * 1024, 7)]);
    const response = await postBranding(context, client, { displayName: 'Too Big' }, { bytes: big, name: 'logo.png', type: 'image/png' });
    assert.equal(response.statusCode, 400);
    assert.match(response.body, /id="logo-error"/);
    assert.match(textOf(response.body), /256/);
    assert.deepEqual(await snapshotTable(context.database, 'merchant_branding'), before);
  });

  test('a file past the parser\'s limit is refused beside its field; too many parts with 413 naming the limit; a body that is not multipart with 400', async () => {
    await client.get(brandingPath);
    const before = await snapshotTable(context.database, 'merchant_branding');
    const huge = await postBranding(context, client, { displayName: 'Huge' }, { bytes: Buffer.concat([png, Buffer.alloc(1100 * 1024, 7)]), name: 'logo.png', type: 'image/png' });
    assert.equal(huge.statusCode, 400, 'a far larger file is refused beside its field too (its bytes were not kept)');
    assert.match(huge.body, /id="logo-error"/);
    assert.match(textOf(huge.body), /must be at most 256 KiB \(this one is over 1024 KiB\)/);
    assert.match(huge.body, /value="Huge"/, 'the typed values stay');

    await client.get(brandingPath);
    const boundary = 'paysail-test-boundary';
    const part = (headers: string, body: string): string => `--${boundary}\r\n${headers}\r\n\r\n${body}\r\n`;
    const twoFiles =
      part('Content-Disposition: form-data; name="_csrf"', client.csrfToken()) +
      part('Content-Disposition: form-data; name="logo"; filename="a.png"\r\nContent-Type: image/png', 'a') +
      part('Content-Disposition: form-data; name="logo"; filename="b.png"\r\nContent-Type: image/png', 'b') +
      `--${boundary}--\r\n`;
    const cookie = [...client.cookies].map(([name, value]) => `${name}=${value}`).join('; ');
    const multiple = await context.app.inject({ method: 'POST', url: brandingPath, headers: { cookie, 'content-type': `multipart/form-data; boundary=${boundary}` }, payload: twoFiles });
    assert.equal(multiple.statusCode, 413);
    assert.match(textOf(multiple.body), /This form is too large[\s\S]*This form takes at most 1 file and 10 fields[\s\S]*with fewer or smaller files, or shorter values/);

    await client.get(brandingPath);
    const longField = await postBranding(context, client, { displayName: 'x'.repeat(3000) });
    assert.equal(longField.statusCode, 413);
    assert.match(textOf(longField.body), /A field of this form may be at most 2048 bytes/);

    const truncated = await context.app.inject({ method: 'POST', url: brandingPath, headers: { cookie, 'content-type': `multipart/form-data; boundary=${boundary}` }, payload: part('Content-Disposition: form-data; name="displayName"', 'Cut') + `--${boundary}\r\nContent-Disp` });
    assert.equal(truncated.statusCode, 400, 'a body that ends inside a part is not a form');
    assert.match(textOf(truncated.body), /body is not a valid multipart form/);

    const noBoundary = await context.app.inject({ method: 'POST', url: brandingPath, headers: { cookie, 'content-type': 'multipart/form-data' }, payload: 'displayName=x' });
    assert.equal(noBoundary.statusCode, 400);
    assert.match(textOf(noBoundary.body), /body is not a valid multipart form/);
    assert.deepEqual(await snapshotTable(context.database, 'merchant_branding'), before);
  });

  test('removing the logo clears it', async () => {
    await client.get(brandingPath);
    const response = await postBranding(context, client, { displayName: 'Acme Books', brandColor: '#0f766e', removeLogo: 'yes' });
    assert.equal(response.statusCode, 303, response.body);
    const saved = json<{ data: Record<string, string | null> }>(await context.admin('GET', `/admin/v1/merchants/${merchant.id}/branding`)).data;
    assert.equal(saved.logoUrl, null);
    assert.equal(saved.displayName, 'Acme Books');
  });

  test("isolation: another merchant's screen shows its own (empty) branding", async () => {
    const theirs = await signedInClient(context, other);
    const response = await theirs.get(brandingPath);
    assert.doesNotMatch(response.body, /Acme Books|#0f766e/);
  });

  test('without the CSRF token nothing is saved', async () => {
    await client.get(brandingPath);
    const before = await snapshotTable(context.database, 'merchant_branding');
    const response = await postBranding(context, client, { displayName: 'Forged' }, undefined, { withCsrf: false });
    assert.equal(response.statusCode, 403);
    assert.deepEqual(await snapshotTable(context.database, 'merchant_branding'), before);
  });
});
