import assert from 'node:assert/strict';
import { createTestContext, json, type TestContext, type TestMerchant } from './context.ts';

/** The branding a merchant's `GET/POST /admin/v1/merchants/:merchantId/branding` answers. */
export interface BrandingBody {
  displayName: string | null;
  brandColor: string | null;
  buttonTextColor: string | null;
  supportEmail: string | null;
  supportUrl: string | null;
  logoUrl: string | null;
  updatedAt: number | null;
}

export const brandingUrl = (merchantId: string): string => `/admin/v1/merchants/${merchantId}/branding`;

/** An SVG logo with everything a sanitiser must take out: script, event handler, remote reference, foreign HTML. */
export const evilSvg = Buffer.from(
  '<svg xmlns="http://www.w3.org/2000/svg" xmlns:xlink="http://www.w3.org/1999/xlink" viewBox="0 0 40 10" onload="alert(1)"><script>alert(2)</script>' +
    '<rect width="40" height="10" fill="#635bff"/><use xlink:href="https://evil.example/s.svg#x"/><foreignObject><div xmlns="http://www.w3.org/1999/xhtml">x</div></foreignObject></svg>',
);
/** The smallest file that passes as a PNG logo: the signature and some bytes. */
export const png = Buffer.concat([Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]), Buffer.alloc(64, 7)]);

/** A test context with two merchants, Acme Ltd (the one branded) and Other Co. */
export async function openBrandingSuite(): Promise<{ context: TestContext; merchant: TestMerchant; other: TestMerchant }> {
  const context = await createTestContext();
  return { context, merchant: await context.createMerchant({ name: 'Acme Ltd' }), other: await context.createMerchant({ name: 'Other Co' }) };
}

/** Sets a merchant's branding through the admin API and answers it; fails the test on anything but 200. */
export async function brand(context: TestContext, merchantId: string, body: Record<string, unknown>): Promise<BrandingBody> {
  const response = await context.admin('POST', brandingUrl(merchantId), body);
  assert.equal(response.statusCode, 200, response.body);
  return json<{ data: BrandingBody }>(response).data;
}
