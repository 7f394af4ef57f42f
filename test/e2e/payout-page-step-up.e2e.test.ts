import assert from 'node:assert/strict';
import fs from 'node:fs';
import { createServer, type AddressInfo } from 'node:net';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import type { Browser, Page } from 'playwright-core';
import { launchChromium, startBrowserTest } from '../helpers/chromium.ts';
import { createTestContext, type TestContext, type TestMerchant } from '../helpers/context.ts';
import { onEmbeddedRunOnly } from '../helpers/database.ts';
import { assertLedgerInvariants } from '../helpers/ledger.ts';
import { advanceAndDrain, assertOneEventPerChange, bankMethod, confirmPage, createPage, fullKyc, getPage, latestCode, uniqueReference, type PayoutPageData } from '../helpers/payout-pages.ts';
import { startOnfidoReplica, type OnfidoReplica } from '../providers/onfido/replica.ts';

const artifacts = path.resolve('test-artifacts');
const desktop = { width: 1440, height: 900 };
const phone = { width: 390, height: 844 };

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as AddressInfo;
      server.close(() => resolve(port));
    });
  });
}

/** Both sizes of the current state: desktop 1440×900 and phone 390×844 (full page). */
async function shot(page: Page, name: string): Promise<void> {
  const before = page.viewportSize() ?? desktop;
  for (const [size, viewport] of [['desktop', desktop], ['phone', phone]] as const) {
    await page.setViewportSize(viewport);
    await page.screenshot({ path: path.join(artifacts, `payout-step-up-${name}-${size}.png`), fullPage: true });
  }
  await page.setViewportSize(before);
}

function watchCsp(page: Page, violations: string[]): Page {
  page.on('console', (message) => {
    if (/Content Security Policy/i.test(message.text())) {
      violations.push(message.text());
    }
  });
  return page;
}

async function enterCode(context: TestContext, page: Page, base: string, payout: PayoutPageData, name?: string): Promise<void> {
  await page.goto(`${base}/payout-page/${payout.id}`);
  await page.getByRole('button', { name: 'E-mail me a code' }).click();
  await page.waitForSelector('#code');
  await page.getByLabel('6-digit code').fill(await latestCode(context, payout.id));
  if (name) {
    await shot(page, name);
  }
  await page.getByRole('button', { name: 'Verify' }).click();
  await page.waitForLoadState('load');
}

/**
 * The document step-up in a real browser, through the replica's stand-in of Onfido's web SDK
 * (loaded from ONFIDO_SDK_URL under the page's CSP; uploads go from the browser to the replica with
 * the SDK token, checked against the Referer). Sandbox mode backed by Onfido's sandbox
 * (ONFIDO_TEST_*) runs the live adapter and has funded balances. The decisions arrive by signed
 * webhooks; the "checking" page refreshes itself until the outcome shows.
 */
describe('document step-up on the hosted payout page in chromium (Onfido web SDK stand-in)', { skip: onEmbeddedRunOnly }, () => {
  let context: TestContext;
  let merchant: TestMerchant;
  let replica: OnfidoReplica;
  let browser: Browser;
  let base: string;
  const cspViolations: string[] = [];

  before(async () => {
    fs.mkdirSync(artifacts, { recursive: true });
    replica = await startOnfidoReplica({ apiToken: 'api_sandbox.replica-token' });
    const port = await freePort();
    base = `http://127.0.0.1:${port}`;
    context = await createTestContext({
      env: {
        PUBLIC_URL: base,
        ONFIDO_TEST_API_TOKEN: replica.apiToken,
        ONFIDO_TEST_WEBHOOK_TOKEN: replica.webhookToken,
        ONFIDO_TEST_REGION: 'EU',
        ONFIDO_TEST_API_URL: replica.url,
        ONFIDO_SDK_URL: replica.sdkUrl,
      },
    });
    merchant = await context.createMerchant({ name: 'Acme Payouts' });
    await context.app.listen({ port, host: '127.0.0.1' });
    browser = await launchChromium();
  });

  after(async () => {
    await browser?.close();
    await assertLedgerInvariants(context.database);
    await assertOneEventPerChange(context);
    await context.close();
    await replica.close();
    assert.deepEqual(cspViolations, [], 'no Content-Security-Policy violations');
  });

  async function webhook(checkId: string): Promise<void> {
    const delivery = replica.webhook('check.completed', { type: 'check', id: checkId });
    const response = await fetch(`${base}/providers/onfido/webhooks`, { method: 'POST', body: delivery.body, headers: delivery.headers });
    assert.equal(response.status, 200, await response.text());
    await context.drainJobs();
  }

  /** A customer Onfido cannot identify from data (the webhook says so), with a confirmed MANUAL page waiting on documents. */
  async function waitingForDocuments(lastName: string): Promise<{ payout: PayoutPageData; customerId: string }> {
    const referenceId = uniqueReference('e2e-stepup');
    const created = await context.request({ method: 'POST', url: '/v1/customers?livemode=false', apiKey: merchant.apiKey, body: { referenceId, signupAt: 1_700_000_000_000, email: 'ada@example.com', ...fullKyc, lastName } });
    assert.equal(created.statusCode, 200, created.body);
    const customerId = (JSON.parse(created.body) as { data: { id: string } }).data.id;
    await context.drainJobs();
    const dataCheck = String((await context.platform.services.kyc.latestVerification(customerId))?.providerReference);
    replica.complete(dataCheck);
    await webhook(dataCheck);
    const payout = await createPage(context, merchant, { amount: 48_000, releaseMethod: 'MANUAL', customer: { referenceId, email: 'ada@example.com' } });
    assert.equal((await confirmPage(context, merchant, payout.id, { payoutMethod: bankMethod })).statusCode, 200);
    assert.equal((await context.platform.services.kyc.stepUpStage(customerId))?.stage, 'CAPTURE');
    return { payout, customerId };
  }

  /** Takes the photos through the SDK stand-in; returns once the page shows "checking". */
  async function captureInBrowser(page: Page, name: string | null): Promise<void> {
    await page.waitForSelector('#onfido-mount button');
    assert.equal(await page.isVisible('#step-up-loading'), false, 'the SDK started');
    if (name) {
      await shot(page, `${name}-capture-document`);
    }
    await page.getByRole('button', { name: 'Take photo of passport' }).click();
    await page.getByRole('button', { name: 'Take selfie' }).waitFor();
    if (name) {
      await shot(page, `${name}-capture-selfie`);
    }
    await page.getByRole('button', { name: 'Take selfie' }).click();
    await page.waitForSelector('text=We’re checking your documents');
  }

  async function documentCheckOf(customerId: string): Promise<string> {
    await context.drainJobs();
    const verification = await context.platform.services.kyc.latestVerification(customerId);
    assert.equal(verification?.stage, 'DOCUMENTS');
    const checkId = String(verification?.providerReference);
    const names = (replica.checks.get(checkId)?.report_ids ?? []).map((id) => replica.reports.get(id)?.name).sort();
    assert.deepEqual(names, ['document', 'facial_similarity_photo'], 'a document + facial-similarity check');
    return checkId;
  }

  test('pass: code → capture (document, selfie) through the SDK → checking → clear by webhook → the page shows the payout confirmed by itself', async () => {
    const { payout, customerId } = await waitingForDocuments('Unidentified');
    const page = watchCsp(await browser.newPage({ viewport: desktop }), cspViolations);
    await enterCode(context, page, base, payout, 'onfido-1-code');
    assert.ok((await page.textContent('h1'))?.includes('Verify your identity with a photo ID'));
    await captureInBrowser(page, 'onfido-2');
    await shot(page, 'onfido-4-checking');
    assert.equal(await page.locator('meta[http-equiv="refresh"]').count(), 0, 'no timed refresh (WCAG 2.2.1)');
    assert.equal(await page.getByRole('link', { name: 'Check again' }).getAttribute('href'), `/payout-page/${payout.id}`);
    assert.equal(await page.locator('[data-watch-message]').innerText(), 'This page updates by itself when anything changes.', 'the script watches');

    const applicantId = String((await context.platform.services.kyc.latestVerification(customerId))?.providerApplicantId);
    assert.equal([...replica.documents.values()].filter((document) => document.applicant_id === applicantId).length, 1, 'the document went from the browser to Onfido');
    const upload = replica.requests.find((request) => request.method === 'POST' && request.path === '/v3.6/documents');
    assert.ok(upload, 'uploaded with the SDK token');

    const checkId = await documentCheckOf(customerId);
    replica.complete(checkId);
    await webhook(checkId);
    assert.equal((await getPage(context, merchant, payout.id))['sub-status'], 'AWAITING_RELEASE');
    await page.waitForSelector('text=Your payout is confirmed', { timeout: 120_000 });
    await shot(page, 'onfido-5-approved');
    await page.close();
  });

  test('reject: the document check rejects the document → the page shows the identity could not be verified', async () => {
    const { payout, customerId } = await waitingForDocuments('UnidentifiedForged');
    const page = watchCsp(await browser.newPage({ viewport: desktop }), cspViolations);
    await enterCode(context, page, base, payout);
    await captureInBrowser(page, null);
    const checkId = await documentCheckOf(customerId);
    replica.complete(checkId);
    await webhook(checkId);
    const failed = await getPage(context, merchant, payout.id);
    assert.equal(`${failed.status}/${failed['sub-status']}`, 'FAILED/KYC_REJECTED');
    await page.waitForSelector('text=We couldn’t verify your identity', { timeout: 120_000 });
    await shot(page, 'onfido-6-rejected');
    await page.close();
  });

  test('without JavaScript the capture page says why it is needed', async () => {
    const { payout } = await waitingForDocuments('Unidentified');
    const noScript = await browser.newContext({ viewport: desktop, javaScriptEnabled: false });
    const page = watchCsp(await noScript.newPage(), cspViolations);
    await enterCode(context, page, base, payout);
    await page.waitForSelector('h1:has-text("Verify your identity with a photo ID")');
    assert.ok((await page.textContent('main'))?.includes('Taking the photos needs JavaScript'));
    assert.equal(await page.isVisible('#step-up-capture'), false, 'no capture box that would never load');
    await shot(page, 'onfido-3-no-javascript');
    await noScript.close();
  });
});

/** The sandbox's own provider: the test-documents form, in a browser without JavaScript. */
describe('document step-up with the sandbox test documents in chromium, JavaScript off', { skip: onEmbeddedRunOnly }, () => {
  let context: TestContext;
  let merchant: TestMerchant;
  let browser: Browser;
  let base: string;

  before(async () => {
    ({ context, browser, base } = await startBrowserTest(artifacts));
    merchant = await context.createMerchant({ name: 'Acme Payouts' });
  });
  after(async () => {
    await browser?.close();
    await assertLedgerInvariants(context.database);
    await context.close();
  });

  test('code → pick the genuine test passport → checking → approved', async () => {
    const referenceId = uniqueReference('e2e-sandbox-stepup');
    const created = await context.request({ method: 'POST', url: '/v1/customers?livemode=false', apiKey: merchant.apiKey, body: { referenceId, signupAt: 1_700_000_000_000, email: 'ada@example.com', ...fullKyc, lastName: 'Documents' } });
    assert.equal(created.statusCode, 200, created.body);
    const payout = await createPage(context, merchant, { amount: 48_000, releaseMethod: 'AUTOMATIC', customer: { referenceId, email: 'ada@example.com' } });
    assert.equal((await confirmPage(context, merchant, payout.id, { payoutMethod: bankMethod })).statusCode, 200);
    await advanceAndDrain(context);

    const noScript = await browser.newContext({ viewport: desktop, javaScriptEnabled: false });
    const page = await noScript.newPage();
    await enterCode(context, page, base, payout);
    await page.waitForSelector('text=Sandbox: choose a test document');
    await shot(page, 'sandbox-1-test-documents');
    await page.getByLabel(/Genuine test passport/).check();
    await page.getByRole('button', { name: 'Submit document' }).click();
    await page.waitForSelector('text=We’re checking your documents');
    await shot(page, 'sandbox-2-checking');
    await advanceAndDrain(context);
    await page.reload();
    await page.waitForSelector('text=Your payout is on its way');
    await shot(page, 'sandbox-3-approved');
    await noScript.close();
  });
});
