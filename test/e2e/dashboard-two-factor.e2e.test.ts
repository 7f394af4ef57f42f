import assert from 'node:assert/strict';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { Secret, TOTP } from 'otpauth';
import type { Browser, Page } from 'playwright-core';
import { assertNoSeriousAxeViolations } from '../helpers/axe.ts';
import { closeBrowserTest, startBrowserTest } from '../helpers/chromium.ts';
import type { TestContext } from '../helpers/context.ts';
import { onEmbeddedRunOnly } from '../helpers/database.ts';

const artifacts = path.resolve('test-artifacts', 'dashboard-two-factor');

/**
 * Two-factor sign-in in a real browser (Debian chromium through playwright-core), on a desktop and a
 * phone: the Security screen, enrolment (QR code and key, the first code typed from an
 * authenticator computed here with otpauth), the recovery codes, the confirmation dialog of turning it
 * off, and the code step of the next sign-in. axe-core on each: no serious or critical violation.
 */
describe('dashboard two-factor sign-in in chromium', { timeout: 300_000, skip: onEmbeddedRunOnly }, () => {
  let context: TestContext;
  let browser: Browser;
  let base: string;

  before(async () => {
    ({ context, browser, base } = await startBrowserTest(artifacts));
  });
  after(async () => {
    await closeBrowserTest({ browser, context });
  });

  /** Screenshot, then axe-core in the page (through the DevTools protocol, which the CSP does not govern). */
  async function check(page: Page, name: string): Promise<void> {
    // A dialog covers the viewport only: its shot is of the viewport.
    await page.screenshot({ path: path.join(artifacts, `${name}.png`), fullPage: !name.endsWith('dialog') });
    await assertNoSeriousAxeViolations(page, name);
  }

  const codeFor = (secret: string) => TOTP.generate({ secret: Secret.fromBase32(secret), timestamp: context.clock.now().getTime() });

  for (const [device, viewport] of [
    ['desktop', { width: 1440, height: 900 }],
    ['phone', { width: 390, height: 844 }],
  ] as const) {
    test(`${device}: enrol with the QR code's key, save the recovery codes, then sign in with a code`, async () => {
      const merchant = await context.createMerchant({ name: 'Acme Sails' });
      const user = merchant.dashboardUser;
      const page = await (await browser.newContext({ viewport, locale: 'en-US', userAgent: `Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36` })).newPage();
      await page.goto(`${base}/dashboard`);
      await page.getByLabel('E-mail').fill(user.email);
      await page.getByLabel('Password').fill(user.password);
      await page.getByRole('button', { name: 'Sign in' }).click();
      await page.waitForURL(`${base}/dashboard/sandbox`);

      await page.goto(`${base}/dashboard/sandbox/account`);
      await page.getByRole('link', { name: 'Security' }).click();
      await page.waitForURL(`${base}/dashboard/sandbox/account/security`);
      assert.match(await page.getByRole('region', { name: 'Your sessions' }).innerText(), /Chrome 131 on Linux\s+This session/);
      await check(page, `${device}-1-security-off`);

      await page.getByRole('link', { name: 'Set up two-factor sign-in' }).click();
      await page.getByRole('img', { name: 'QR code to scan with your authenticator app' }).waitFor();
      const secret = (await page.locator('code.secret').innerText()).replace(/\s/g, '');
      assert.match(secret, /^[A-Z2-7]{32}$/);
      await check(page, `${device}-2-enrol`);
      await page.getByLabel('6-digit code').fill(codeFor(secret));
      await page.getByRole('button', { name: 'Turn on two-factor sign-in' }).click();
      await page.waitForURL(/\/recovery-codes$/);
      const codes = (await page.getByRole('list', { name: 'Recovery codes' }).innerText()).split(/\s+/).filter((code) => code !== '');
      assert.equal(codes.length, 10);
      await check(page, `${device}-3-recovery-codes`);
      await page.getByRole('link', { name: 'I saved my recovery codes' }).click();
      await page.waitForURL(`${base}/dashboard/sandbox/account/security`);
      assert.match(await page.locator('main').innerText(), /On since/);
      await check(page, `${device}-4-security-on`);

      // Turning it off asks first; Cancel leaves it on.
      await page.getByLabel('A code from your app, or your password').fill(user.password);
      await page.getByRole('button', { name: 'Turn off two-factor sign-in' }).click();
      const dialog = page.getByRole('dialog', { name: 'Turn off two-factor sign-in?' });
      await dialog.waitFor();
      await check(page, `${device}-5-disable-dialog`);
      await dialog.getByRole('button', { name: 'Cancel' }).click();
      await dialog.waitFor({ state: 'hidden' });

      await page.getByRole('button', { name: 'Sign out' }).first().click();
      await page.waitForURL(/signed_out=1/);
      await page.getByLabel('E-mail').fill(user.email);
      await page.getByLabel('Password').fill(user.password);
      await page.getByRole('button', { name: 'Sign in' }).click();
      await page.waitForURL(`${base}/dashboard/sign-in/code`);
      await check(page, `${device}-6-code-step`);
      context.clock.advance(30_000);
      await page.getByLabel('Code', { exact: true }).fill(codeFor(secret));
      await page.getByRole('button', { name: 'Sign in' }).click();
      await page.waitForURL(`${base}/dashboard/sandbox`);
      await page.context().close();
    });
  }
});
