import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { ParsedMail } from 'mailparser';
import { createTestContext, json, type TestContext, type TestMerchant } from '../helpers/context.ts';
import { startSmtpSink, type SmtpSink } from '../helpers/smtp.ts';
import { createPage as createPaymentPage, payPage, testCards } from '../helpers/payment-pages.ts';
import { createPage as createPayoutPage } from '../helpers/payout-pages.ts';

const png = Buffer.concat([Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]), Buffer.alloc(64, 3)]);

/**
 * The merchant's branding where customers see it: every state of the hosted checkout and payout
 * page, and the e-mails (over real SMTP). Another merchant's pages and e-mails never show it.
 */
describe('merchant branding on hosted pages and in e-mails', () => {
  let smtp: SmtpSink;
  let context: TestContext;
  let branded: TestMerchant;
  let plain: TestMerchant;
  let logoUrl: string;

  before(async () => {
    smtp = await startSmtpSink();
    context = await createTestContext({ env: { SMTP_URL: smtp.url, MAIL_FROM: 'Paysail <no-reply@paysail.test>' } });
    branded = await context.createMerchant({ name: 'Northwind Legal Name Ltd' });
    plain = await context.createMerchant({ name: 'Plain Shop' });
    const response = await context.admin('POST', `/admin/v1/merchants/${branded.id}/branding`, {
      displayName: 'Northwind Supplies',
      brandColor: '#7c3aed',
      supportEmail: 'help@northwind.example',
      supportUrl: 'https://northwind.example/help',
      logo: png.toString('base64'),
    });
    assert.equal(response.statusCode, 200, response.body);
    logoUrl = json<{ data: { logoUrl: string } }>(response).data.logoUrl;
  });
  after(async () => {
    await context.close();
    await smtp.close();
  });

  const page = async (url: string) => {
    const response = await context.app.inject({ method: 'GET', url });
    assert.ok(response.statusCode < 500, `${url}: ${response.statusCode}`);
    return response.body;
  };

  function assertBranded(html: string, label: string): void {
    assert.match(html, /<p class="brand-name">Northwind Supplies<\/p>/, `${label}: display name in the header`);
    assert.ok(html.includes(`<img src="${logoUrl}"`), `${label}: logo in the header`);
    assert.ok(html.includes(`<link rel="icon" href="${logoUrl}"`), `${label}: logo as the icon`);
    assert.match(html, /--accent: #7c3aed; --accent-ink: #ffffff; --focus: #7c3aed;/, `${label}: brand colour on buttons and focus rings`);
    assert.match(html, /href="mailto:help@northwind\.example"/, `${label}: support e-mail in the footer`);
    assert.match(html, /href="https:\/\/northwind\.example\/help"/, `${label}: support URL in the footer`);
    assert.match(html, /class="sandbox"/, `${label}: the sandbox banner stays`);
    assert.doesNotMatch(html, /Northwind Legal Name/, `${label}: the display name replaces the account name`);
  }

  function assertNotBranded(html: string, label: string): void {
    assert.doesNotMatch(html, /Northwind|#7c3aed|brand\/logos/, `${label}: nothing of the other merchant's branding`);
    assert.match(html, /<p class="brand-name">Plain Shop<\/p>/, `${label}: its own name`);
    assert.ok(html.includes('<link rel="icon" href="/favicon.svg"'), `${label}: Paysail's icon`);
  }

  test('checkout, in progress and paid pages carry the branding; the receipt too (SMTP)', async () => {
    const created = await createPaymentPage(context, branded, { customer: { referenceId: 'brand-buyer', email: 'buyer@brand.example' } });
    assertBranded(await page(`/payment-page/${created.id}`), 'checkout');
    assert.equal((await payPage(context, branded, created.id, testCards.visaCredit)).statusCode, 200);
    assertBranded(await page(`/payment-page/${created.id}`), 'paid page');
    await context.drainJobs();
    const receipt = smtp.received.find((mail: ParsedMail) => mail.subject === 'Your receipt from Northwind Supplies');
    assert.ok(receipt, `a receipt named after the display name: ${smtp.received.map((mail) => mail.subject).join(', ')}`);
    assert.match(String(receipt.html), /border-top:4px solid #7c3aed/);
    assert.match(String(receipt.html), /Northwind Supplies/);
    assert.match(String(receipt.text), /Contact Northwind Supplies at help@northwind\.example or https:\/\/northwind\.example\/help/);
    assert.doesNotMatch(String(receipt.html) + String(receipt.text), /Northwind Legal Name/);
  });

  test('the expired checkout keeps the branding and the sandbox banner', async () => {
    const created = await createPaymentPage(context, branded, { expiresAt: context.clock.now().getTime() + 60 * 60_000 });
    context.clock.advance(2 * 60 * 60_000);
    const html = await page(`/payment-page/${created.id}`);
    assert.match(html, /id="expired"/);
    assertBranded(html, 'expired checkout');
  });

  test('the payout page (verify step and its expired state) carries the branding; so does its e-mail (SMTP)', async () => {
    const created = await createPayoutPage(context, branded, { customer: { referenceId: 'brand-payee', email: 'payee@brand.example' } });
    assertBranded(await page(`/payout-page/${created.id}`), 'payout page');
    await context.drainJobs();
    const invitation = smtp.received.find((mail: ParsedMail) => String(mail.subject).startsWith('Northwind Supplies is sending you'));
    assert.ok(invitation, `the payout e-mail names the display name: ${smtp.received.map((mail) => mail.subject).join(', ')}`);
    assert.match(String(invitation.html), /background:#7c3aed;color:#ffffff/);
    assert.match(String(invitation.text), /Contact Northwind Supplies at help@northwind\.example/);
    context.clock.advance(60 * 24 * 60 * 60_000);
    const expired = await page(`/payout-page/${created.id}`);
    assert.match(expired, /expired/i);
    assertBranded(expired, 'expired payout page');
  });

  test("isolation: another merchant's pages and e-mails never show this branding", async () => {
    const checkout = await createPaymentPage(context, plain, { customer: { referenceId: 'plain-buyer', email: 'buyer@plain.example' } });
    assertNotBranded(await page(`/payment-page/${checkout.id}`), 'other checkout');
    const payout = await createPayoutPage(context, plain, { customer: { referenceId: 'plain-payee', email: 'payee@plain.example' } });
    assertNotBranded(await page(`/payout-page/${payout.id}`), 'other payout page');
    assert.equal((await payPage(context, plain, checkout.id, testCards.visaCredit)).statusCode, 200);
    await context.drainJobs();
    const theirs = smtp.received.filter((mail: ParsedMail) => /plain\.example/.test(JSON.stringify(mail.to)));
    assert.ok(theirs.length >= 2, 'the other merchant sent its own e-mails');
    for (const mail of theirs) {
      assert.doesNotMatch(`${mail.subject} ${String(mail.html)} ${String(mail.text)}`, /Northwind|#7c3aed/);
    }
  });
});
