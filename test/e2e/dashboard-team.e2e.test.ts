import assert from 'node:assert/strict';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import type { Browser, Page } from 'playwright-core';
import { assertNoAxeViolations } from '../helpers/axe.ts';
import { closeBrowserTest, startBrowserTest } from '../helpers/chromium.ts';
import type { TestContext, TestMerchant } from '../helpers/context.ts';
import { onEmbeddedRunOnly } from '../helpers/database.ts';
import { latestInvitePath, memberPassword } from '../http/dashboard/team-helpers.ts';

const artifacts = path.resolve('test-artifacts', 'dashboard-team');

/**
 * The Team screen and the accept-invitation page in a real browser (Debian chromium through
 * playwright-core), desktop 1440×900 and phone 390×844: invite by e-mail with a role, the revoke
 * dialog (Cancel changes nothing), accept the invitation (choose a password, land signed in with the
 * role's navigation). axe-core on every page: no violation of any impact.
 */
describe('dashboard Team screen and accept page in chromium', { timeout: 300_000, skip: onEmbeddedRunOnly }, () => {
  let context: TestContext;
  let merchant: TestMerchant;
  let browser: Browser;
  let base: string;

  before(async () => {
    ({ context, browser, base } = await startBrowserTest(artifacts));
    merchant = await context.createMerchant({ name: 'Acme Sails' });
  });
  after(async () => {
    await closeBrowserTest({ browser, context });
  });

  /** Screenshot (the whole page, or the viewport while a modal dialog is open), then axe-core. */
  async function check(page: Page, name: string, fullPage = true): Promise<void> {
    // Nothing wider than the screen: wide tables scroll inside their own region.
    assert.equal(await page.evaluate('document.documentElement.scrollWidth <= document.documentElement.clientWidth'), true, `${name} fits the width`);
    await page.screenshot({ path: path.join(artifacts, `${name}.png`), fullPage });
    await assertNoAxeViolations(page, name);
  }

  for (const [device, viewport] of [
    ['desktop', { width: 1440, height: 900 }],
    ['phone', { width: 390, height: 844 }],
  ] as const) {
    test(`${device}: invite, the revoke dialog, accept and land signed in`, async () => {
      const owner = await (await browser.newContext({ viewport, locale: 'en-US' })).newPage();
      await owner.goto(`${base}/dashboard`);
      await owner.getByLabel('E-mail').fill(merchant.dashboardUser.email);
      await owner.getByLabel('Password').fill(merchant.dashboardUser.password);
      await owner.getByRole('button', { name: 'Sign in' }).click();
      await owner.waitForURL(`${base}/dashboard/sandbox`);
      await owner.getByRole('navigation', { name: 'Sections' }).getByRole('link', { name: 'Team' }).click();
      await owner.waitForURL(`${base}/dashboard/sandbox/team`);

      const email = `${device}.support@acme.example`;
      await owner.getByLabel('E-mail', { exact: true }).fill(email);
      await owner.getByLabel('Role', { exact: true }).selectOption('support');
      await owner.getByRole('button', { name: 'Send invitation' }).click();
      await owner.waitForURL(/notice=member-invited/);
      assert.match(await owner.getByRole('status').first().innerText(), /The invitation was e-mailed/);
      const row = owner.getByRole('row', { name: new RegExp(email.replace(/\./g, '\\.')) });
      assert.match(await row.innerText(), /Support\s+Invited/);
      await check(owner, `${device}-1-team`);

      await row.getByRole('button', { name: 'Revoke' }).click();
      const dialog = owner.getByRole('dialog', { name: `Revoke the invitation of ${email}?` });
      await dialog.waitFor();
      assert.equal(await owner.evaluate('document.activeElement.textContent.trim()'), 'Keep invitation', 'the safe choice has the focus');
      await check(owner, `${device}-2-revoke-dialog`, false);
      await dialog.getByRole('button', { name: 'Keep invitation' }).click();
      await dialog.waitFor({ state: 'hidden' });
      assert.match(await row.innerText(), /Invited/, 'Cancel changed nothing');

      const invitee = await (await browser.newContext({ viewport, locale: 'en-US' })).newPage();
      await invitee.goto(`${base}${await latestInvitePath(context, merchant.id, email)}`);
      assert.equal(await invitee.getByRole('heading', { level: 1 }).innerText(), 'Join Acme Sails on Paysail');
      assert.equal(await invitee.getByLabel('E-mail').inputValue(), email);
      await check(invitee, `${device}-3-accept`);
      await invitee.getByLabel('Choose a password').fill('short');
      await invitee.getByLabel('Repeat the password').fill('short');
      await invitee.getByRole('button', { name: 'Accept and sign in' }).click();
      await invitee.getByRole('alert').waitFor();
      assert.match(await invitee.getByRole('alert').innerText(), /The password must be between 12 and 256 characters/);
      await check(invitee, `${device}-4-accept-error`);
      await invitee.getByLabel('Choose a password').fill(memberPassword);
      await invitee.getByLabel('Repeat the password').fill(memberPassword);
      await invitee.getByRole('button', { name: 'Accept and sign in' }).click();
      await invitee.waitForURL(`${base}/dashboard/sandbox`);
      const sections = await invitee.getByRole('navigation', { name: 'Sections' }).getByRole('link').allInnerTexts();
      assert.ok(sections.includes('Customers') && !sections.includes('Team') && !sections.includes('Audit'), sections.join(', '));

      await owner.reload();
      assert.match(await owner.getByRole('row', { name: new RegExp(email.replace(/\./g, '\\.')) }).innerText(), /Support/);
      await check(owner, `${device}-5-team-with-member`);
      await invitee.goto(`${base}${await latestInvitePath(context, merchant.id, email)}`);
      await check(invitee, `${device}-6-accept-used`);
      await owner.context().close();
      await invitee.context().close();
    });
  }
});
