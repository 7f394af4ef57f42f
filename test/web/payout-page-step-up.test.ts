import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { createTestContext, type TestContext, type TestMerchant } from '../helpers/context.ts';
import { FormClient, visibleText } from '../helpers/browser.ts';
import { advanceAndDrain, bankMethod, closePayoutPageSuite, confirmPage, createPage, fullKyc, getPage, latestCode, openPayoutPageSuite, uniqueReference, type PayoutPageData } from '../helpers/payout-pages.ts';
import { startOnfidoReplica, type OnfidoReplica } from '../providers/onfido/replica.ts';

async function verifiedClient(context: TestContext, page: PayoutPageData): Promise<FormClient> {
  const client = new FormClient(context.app);
  await client.get(`/payout-page/${page.id}`);
  context.clock.advance(31_000);
  const sent = await client.post(`/payout-page/${page.id}/code`, {});
  assert.equal(sent.statusCode, 303);
  assert.match(String(sent.headers.location), /notice=sent/, 'a code can be asked for while documents are awaited');
  await client.get(String(sent.headers.location));
  const done = await client.post(`/payout-page/${page.id}/verify`, { code: await latestCode(context, page.id) });
  assert.equal(done.statusCode, 303, done.body);
  return client;
}

/** Sandbox: the step-up through the test-documents form (no JavaScript), through inject. */
describe('hosted payout page: document step-up (sandbox test documents)', () => {
  let context: TestContext;
  let merchant: TestMerchant;

  before(async () => ({ context, merchant } = await openPayoutPageSuite()));
  after(() => closePayoutPageSuite(context));

  /** A sandbox customer whose data check asks for documents (lastName "Documents"), with a confirmed page waiting on it. */
  async function pageWaitingForDocuments(releaseMethod: 'MANUAL' | 'AUTOMATIC'): Promise<PayoutPageData> {
    const referenceId = uniqueReference('stepup');
    const created = await context.request({ method: 'POST', url: '/v1/customers?livemode=false', apiKey: merchant.apiKey, body: { referenceId, signupAt: 1_700_000_000_000, email: 'ada@example.com', ...fullKyc, lastName: 'Documents' } });
    assert.equal(created.statusCode, 200, created.body);
    const page = await createPage(context, merchant, { releaseMethod, customer: { referenceId, email: 'ada@example.com' } });
    assert.equal((await confirmPage(context, merchant, page.id, { payoutMethod: bankMethod })).statusCode, 200);
    await advanceAndDrain(context);
    assert.equal((await getPage(context, merchant, page.id))['sub-status'], 'KYC_IN_REVIEW');
    return page;
  }

  test('the capture asks for the e-mailed code first, then offers the test documents; no third-party origin in the CSP', async () => {
    const page = await pageWaitingForDocuments('MANUAL');
    const anonymous = await context.app.inject({ method: 'GET', url: `/payout-page/${page.id}` });
    assert.equal(anonymous.statusCode, 200);
    assert.ok(anonymous.body.includes(`action="/payout-page/${page.id}/code"`), 'the visitor verifies first');
    assert.equal(anonymous.body.includes('testDocument'), false);

    const client = await verifiedClient(context, page);
    const capture = await client.get(`/payout-page/${page.id}`);
    const text = visibleText(capture.body);
    assert.ok(text.includes('Verify your identity with a photo ID'), text);
    assert.ok(text.includes('Genuine test passport'));
    assert.ok(text.includes('No photo is taken or stored in sandbox'));
    assert.equal(/<script/.test(capture.body), false, 'the sandbox capture needs no JavaScript');
    const csp = String(capture.headers['content-security-policy']);
    assert.doesNotMatch(csp, /onfido/);
    assert.equal(capture.headers['referrer-policy'], 'no-referrer');
  });

  test('malformed or unknown captures → 400 with the form again, nothing submitted; no CSRF token → 403', async () => {
    const page = await pageWaitingForDocuments('MANUAL');
    const client = await verifiedClient(context, page);
    await client.get(`/payout-page/${page.id}`);
    assert.equal((await client.post(`/payout-page/${page.id}/documents`, { testDocument: 'passport_genuine' }, { csrf: false })).statusCode, 403);
    for (const body of [{}, { testDocument: 'my-passport.jpg' }, { testDocument: '<script>' }, { documentId: 'a', faceId: 'b' }] as Array<Record<string, string>>) {
      await client.get(`/payout-page/${page.id}`);
      const refused = await client.post(`/payout-page/${page.id}/documents`, body);
      assert.equal(refused.statusCode, 400, JSON.stringify(body));
      assert.ok(visibleText(refused.body).includes('We didn’t receive your document and selfie'));
    }
    const customerId = String(page.customer.id);
    assert.equal((await context.platform.services.kyc.stepUpStage(customerId))?.stage, 'CAPTURE', 'still waiting for documents');
  });

  test('genuine test passport → "we’re checking your documents" (refreshing) → approved: the payout waits for release', async () => {
    const page = await pageWaitingForDocuments('MANUAL');
    const client = await verifiedClient(context, page);
    await client.get(`/payout-page/${page.id}`);
    const submitted = await client.post(`/payout-page/${page.id}/documents`, { testDocument: 'passport_genuine' });
    assert.equal(submitted.statusCode, 303);
    assert.equal(submitted.headers.location, `/payout-page/${page.id}`);
    const checking = await new FormClient(context.app).get(`/payout-page/${page.id}`);
    assert.ok(visibleText(checking.body).includes('We’re checking your documents'), 'shown to anyone with the link: nothing stored is on it');
    assert.equal(checking.body.includes('http-equiv="refresh"'), false, 'no timed refresh (WCAG 2.2.1)');
    assert.match(checking.body, new RegExp(`<a class="button secondary" href="/payout-page/${page.id}">Check again</a>`), 'without JavaScript: Check again');
    assert.match(checking.body, new RegExp(`data-status-key="checking-documents" data-refresh-seconds="5" data-check-url="/payout-page/${page.id}"`), 'with JavaScript: watched');
    const again = await client.post(`/payout-page/${page.id}/documents`, { testDocument: 'passport_tampered', _csrf: client.csrfToken() }, { csrf: false });
    assert.equal(again.statusCode, 303, 'a second capture changes nothing');
    await advanceAndDrain(context);
    const decided = await client.get(`/payout-page/${page.id}`);
    assert.ok(visibleText(decided.body).includes('Your payout is confirmed'), visibleText(decided.body));
    assert.equal((await getPage(context, merchant, page.id))['sub-status'], 'AWAITING_RELEASE');
  });

  test('tampered test passport → the payout fails with KYC_REJECTED and the page says so', async () => {
    const page = await pageWaitingForDocuments('AUTOMATIC');
    const client = await verifiedClient(context, page);
    await client.get(`/payout-page/${page.id}`);
    assert.equal((await client.post(`/payout-page/${page.id}/documents`, { testDocument: 'passport_tampered' })).statusCode, 303);
    await advanceAndDrain(context);
    const failed = await getPage(context, merchant, page.id);
    assert.equal(`${failed.status}/${failed['sub-status']}`, 'FAILED/KYC_REJECTED');
    assert.ok(visibleText((await client.get(`/payout-page/${page.id}`)).body).includes('We couldn’t verify your identity'));
  });
});

/**
 * Onfido's capture through its web SDK (the replica's stand-in). Sandbox mode backed by Onfido's
 * sandbox (ONFIDO_TEST_*) runs the same adapter as live, and its pages are funded.
 */
describe('hosted payout page: document step-up through Onfido (replica)', () => {
  let context: TestContext;
  let merchant: TestMerchant;
  let replica: OnfidoReplica;

  before(async () => {
    replica = await startOnfidoReplica({ apiToken: 'api_sandbox.replica-token' });
    context = await createTestContext({
      env: { ONFIDO_TEST_API_TOKEN: replica.apiToken, ONFIDO_TEST_WEBHOOK_TOKEN: replica.webhookToken, ONFIDO_TEST_REGION: 'EU', ONFIDO_TEST_API_URL: replica.url, ONFIDO_SDK_URL: replica.sdkUrl },
    });
    merchant = await context.createMerchant({ name: 'Acme Payouts' });
  });
  after(async () => {
    await context.close();
    await replica.close();
  });

  test('the SDK page: script from ONFIDO_SDK_URL with the nonce, a token for the applicant bound to our origin, CSP with exactly Onfido’s origins and the SDK’s, origin-only referrer, a no-JavaScript note', async () => {
    const referenceId = uniqueReference('onfido-stepup');
    const created = await context.request({ method: 'POST', url: '/v1/customers?livemode=false', apiKey: merchant.apiKey, body: { referenceId, signupAt: 1_700_000_000_000, email: 'ada@example.com', ...fullKyc, lastName: 'Unidentified' } });
    assert.equal(created.statusCode, 200, created.body);
    await context.drainJobs();
    const customerId = (JSON.parse(created.body) as { data: { id: string } }).data.id;
    const verification = await context.platform.services.kyc.latestVerification(customerId);
    assert.equal(verification?.provider, 'onfido-test');
    replica.complete(String(verification?.providerReference));
    await context.platform.services.kyc.refresh(String(verification?.id));
    const page = await createPage(context, merchant, { releaseMethod: 'MANUAL', customer: { referenceId, email: 'ada@example.com' } });
    assert.equal((await confirmPage(context, merchant, page.id, { payoutMethod: bankMethod })).statusCode, 200);
    assert.equal((await context.platform.services.kyc.stepUpStage(customerId))?.stage, 'CAPTURE');

    const client = await verifiedClient(context, page);
    const response = await client.get(`/payout-page/${page.id}`);
    assert.equal(response.statusCode, 200, response.body);
    const csp = String(response.headers['content-security-policy']);
    const sdkOrigin = new URL(replica.sdkUrl).origin.replace(/[.]/g, '\\.');
    const nonce = /script-src 'nonce-([^']+)'/.exec(csp)?.[1];
    assert.match(csp, new RegExp(`script-src 'nonce-[^']+' https://sdk\\.onfido\\.com https://assets\\.onfido\\.com ${sdkOrigin};`));
    assert.match(csp, new RegExp(`connect-src 'self' https://api\\.onfido\\.com https://api\\.eu\\.onfido\\.com https://api\\.us\\.onfido\\.com https://api\\.ca\\.onfido\\.com ${sdkOrigin};`));
    assert.match(csp, /frame-src https:\/\/sdk\.onfido\.com;/);
    assert.match(csp, /default-src 'none'/);
    assert.equal(response.headers['referrer-policy'], 'strict-origin', 'Onfido checks the Referer against the token; only our origin is sent');
    assert.ok(response.body.includes(`<script nonce="${String(nonce)}" src="${replica.sdkUrl}">`), 'the SDK is loaded from ONFIDO_SDK_URL');
    const token = /data-token="([^"]+)"/.exec(response.body)?.[1];
    assert.match(String(token), new RegExp(`^sdk-${String(verification?.providerApplicantId)}-`));
    const tokenRequest = replica.requests.filter((request) => request.path === '/v3.6/sdk_token').at(-1);
    assert.deepEqual(tokenRequest?.body, { applicant_id: verification?.providerApplicantId, referrer: 'http://paysail.test/*' });
    assert.ok(visibleText(response.body).includes('Taking the photos needs JavaScript'));

    // Ids of uploads Onfido does not hold → 400, nothing submitted.
    const bogus = await client.post(`/payout-page/${page.id}/documents`, { documentId: 'doc-1', faceId: 'face-1' });
    assert.equal(bogus.statusCode, 400);
    assert.equal((await context.platform.services.kyc.stepUpStage(customerId))?.stage, 'CAPTURE');

    // Every other page state keeps the strict policy.
    const elsewhere = await client.get(`/payout-page/${page.id}?step=decline`);
    assert.doesNotMatch(String(elsewhere.headers['content-security-policy']), /onfido/);
    assert.equal(elsewhere.headers['referrer-policy'], 'no-referrer');
  });
});
