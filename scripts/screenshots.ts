// `npm run screenshots`: starts Paysail as a newcomer would (`src/main.ts` on an empty data directory,
// on a free loopback port), makes a payment page and a payout page through the API, and photographs
// the hosted pages and the dashboard in chromium (then sets a logo and brand colour on the Branding
// screen and photographs a branded checkout; a customer's story, a subscription and the Team screen) at desktop (1440×900) and phone (390×844) size
// into docs/screenshots/. The README shows three of them. CHROMIUM_PATH overrides /usr/bin/chromium.
import { spawn } from 'node:child_process';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Secret, TOTP } from 'otpauth';
import { chromium, type Page } from 'playwright-core';
import { packageRoot } from '../src/package-root.ts';

const outDir = path.join(packageRoot, 'docs', 'screenshots');
const devices = { desktop: { width: 1440, height: 900 }, phone: { width: 390, height: 844 } } as const;

/** A made-up merchant's logo for the branding shots: a teal mark (the display name is written beside it). */
const exampleLogo = `<svg xmlns="http://www.w3.org/2000/svg" width="64" height="64" viewBox="0 0 64 64"><rect x="4" y="4" width="56" height="56" rx="14" fill="#0f766e"/><path d="M18 44 L32 18 L46 44 Z" fill="#fff"/></svg>`;

async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      server.close(() => (address && typeof address === 'object' ? resolve(address.port) : reject(new Error('no port'))));
    });
  });
}

/** Starts the server and reads the demo merchant's API key and dashboard login from what it prints. */
async function startServer(dataDir: string, port: number): Promise<{ stop: () => void; apiKey: string; email: string; password: string }> {
  const child = spawn(process.execPath, ['--import', 'tsx', path.join(packageRoot, 'src/main.ts')], {
    env: { ...process.env, DATA_DIR: dataDir, PORT: String(port), HOST: '127.0.0.1', PUBLIC_URL: `http://127.0.0.1:${port}`, LOG_LEVEL: 'warn' },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  let output = '';
  const credentials = await new Promise<{ apiKey: string; email: string; password: string }>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`the server did not start:\n${output}`)), 60_000);
    child.stdout.on('data', (chunk: Buffer) => {
      output += chunk.toString();
      const apiKey = /API key:\s+(\S+)/.exec(output)?.[1];
      const login = /Dashboard login:\s+(\S+) \/ (\S+)/.exec(output);
      if (apiKey && login?.[1] && login[2] && /API docs:/.test(output)) {
        clearTimeout(timer);
        resolve({ apiKey, email: login[1], password: login[2] });
      }
    });
    child.once('exit', (code) => reject(new Error(`the server exited with ${code}:\n${output}`)));
  });
  return { stop: () => child.kill('SIGTERM'), ...credentials };
}

async function api(base: string, apiKey: string, method: string, url: string, body?: unknown): Promise<Record<string, unknown>> {
  const response = await fetch(`${base}${url}`, {
    method,
    headers: { authorization: `Basic ${Buffer.from(`${apiKey}:`).toString('base64')}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  const answer = (await response.json()) as { data: Record<string, unknown> };
  if (!response.ok) {
    throw new Error(`${method} ${url} answered ${response.status}: ${JSON.stringify(answer)}`);
  }
  return answer.data;
}

async function shoot(page: Page, name: string, url: string | null, prepare?: (page: Page) => Promise<void>): Promise<void> {
  for (const [device, viewport] of Object.entries(devices)) {
    await page.setViewportSize(viewport);
    if (url !== null) {
      await page.goto(url);
    }
    await prepare?.(page);
    await page.screenshot({ path: path.join(outDir, `${name}-${device}.png`), fullPage: true });
  }
  process.stdout.write(`  ${name}\n`);
}

const dataDir = await mkdtemp(path.join(tmpdir(), 'paysail-screenshots-'));
const port = await freePort();
const base = `http://127.0.0.1:${port}`;
const server = await startServer(dataDir, port);
const browser = await chromium.launch({ executablePath: process.env.CHROMIUM_PATH ?? '/usr/bin/chromium' });
try {
  await mkdir(outDir, { recursive: true });
  const customer = { referenceId: 'user-42', email: 'ada@example.com' };
  const checkout = await api(base, server.apiKey, 'POST', '/v1/payment_pages?livemode=false', {
    amount: 16_500,
    currency: 'USD',
    clientReferenceId: 'order-2027-001',
    customer,
    description: 'Pro plan for Example Ltd, January 2027',
    lineItems: [
      { name: 'Pro plan, monthly', quantity: 1, unitAmount: 12_000 },
      { name: 'Extra seats', quantity: 3, unitAmount: 1_500 },
    ],
  });
  const payout = await api(base, server.apiKey, 'POST', '/v1/payout_pages?livemode=false', { amount: 2_500, fundingCurrency: 'USDC', clientReferenceId: 'payout-0001', releaseMethod: 'MANUAL', customer });

  const context = await browser.newContext();
  const page = await context.newPage();
  const checkoutUrl = String(checkout['url']).replace(/^https?:\/\/[^/]+/, base);
  await shoot(page, 'checkout', checkoutUrl);
  await shoot(page, 'checkout-errors', checkoutUrl, async (current) => {
    await current.fill('#expiry', '13 / 20');
    await current.fill('#cvc', '1');
    await current.click('#pay');
    await current.waitForSelector('#expiry-error');
  });
  await page.setViewportSize(devices.desktop);
  await page.goto(checkoutUrl);
  await page.fill('#cardNumber', '4242 4242 4242 4242');
  await page.fill('#expiry', `12 / ${String((new Date().getUTCFullYear() + 2) % 100).padStart(2, '0')}`);
  await page.fill('#cvc', '123');
  await page.fill('#cardholderName', 'Ada Lovelace');
  await page.click('#pay');
  await page.waitForSelector('#done');
  await shoot(page, 'checkout-paid', checkoutUrl);
  await shoot(page, 'payout-page', String(payout['url']).replace(/^https?:\/\/[^/]+/, base));

  await page.setViewportSize(devices.desktop);
  await page.goto(`${base}/dashboard/sign-in`);
  await page.fill('input[name=email]', server.email);
  await page.fill('input[name=password]', server.password);
  await page.click('button[type=submit]');
  await page.waitForLoadState('networkidle');
  if (new URL(page.url()).pathname === '/dashboard/sign-in') {
    throw new Error(`signing in failed: ${(await page.locator('main').innerText()).slice(0, 300)}`);
  }
  await shoot(page, 'dashboard-overview', `${base}/dashboard/sandbox`);
  await shoot(page, 'dashboard-payment-page', `${base}/dashboard/sandbox/payment-pages/${String(checkout['id'])}`);
  await shoot(page, 'dashboard-payout-page', `${base}/dashboard/sandbox/payout-pages/${String(payout['id'])}`);
  await page.goto(`${base}/dashboard/sandbox/inbox`);
  const receipt = await page.getByRole('link', { name: /Your receipt from/ }).first().getAttribute('href');
  await shoot(page, 'dashboard-inbox-receipt', `${base}${receipt ?? '/dashboard/sandbox/inbox'}`);
  await shoot(page, 'dashboard-pii-keys', `${base}/dashboard/sandbox/developers/pii-key`);

  // The customer's whole story (their lists, a period and a CSV each), a subscription with its invoices and entitlements, and the Team screen.
  const plan = await api(base, server.apiKey, 'POST', '/v1/payment_pages?livemode=false', { amount: 12_000, currency: 'USD', clientReferenceId: 'plan-2027-001', customer, subscription: { productId: 'pro-plan', interval: 'MONTH' } });
  const expYear = new Date().getUTCFullYear() + 2;
  const subscribed = await api(base, server.apiKey, 'POST', `/v1/test_helpers/payment_pages/${String(plan['id'])}/pay?livemode=false`, { cardNumber: '4242424242424242', expMonth: 12, expYear, cvc: '123', cardholderName: 'Ada Lovelace' });
  await page.setViewportSize(devices.desktop);
  await page.goto(`${base}/dashboard/sandbox/customers?reference=${customer.referenceId}`);
  const customerPath = await page.getByRole('link', { name: customer.referenceId, exact: true }).first().getAttribute('href');
  await shoot(page, 'dashboard-customer', `${base}${customerPath ?? '/dashboard/sandbox/customers'}`);
  await shoot(page, 'dashboard-subscription', `${base}/dashboard/sandbox/subscriptions/${String(subscribed['subscriptionId'])}`);
  await shoot(page, 'dashboard-team', `${base}/dashboard/sandbox/team`);

  // Branding: the owner sets a display name, a logo (uploaded as a file), a brand colour and the
  // support contact on the Branding screen; a new payment page then shows them to the customer.
  const logoPath = path.join(dataDir, 'example-logo.svg');
  await writeFile(logoPath, exampleLogo);
  await page.setViewportSize(devices.desktop);
  await page.goto(`${base}/dashboard/sandbox/settings/branding`);
  await page.fill('#displayName', 'Example Ltd');
  await page.fill('#brandColor', '#0f766e');
  await page.fill('#supportEmail', 'help@example.com');
  await page.fill('#supportUrl', 'https://example.com/help');
  await page.setInputFiles('#logo', logoPath);
  await page.getByRole('button', { name: 'Save branding' }).click();
  await page.waitForURL(/notice=branding-saved/);
  await shoot(page, 'dashboard-branding', `${base}/dashboard/sandbox/settings/branding`);
  const branded = await api(base, server.apiKey, 'POST', '/v1/payment_pages?livemode=false', {
    amount: 4_900,
    currency: 'USD',
    clientReferenceId: 'order-2027-002',
    customer,
    description: 'Annual support plan',
  });
  await shoot(page, 'checkout-branded', String(branded['url']).replace(/^https?:\/\/[^/]+/, base));

  // Two-factor sign-in: the Security screen, enrolment, the recovery codes (shown once), the code step.
  await shoot(page, 'dashboard-security', `${base}/dashboard/sandbox/account/security`);
  await shoot(page, 'dashboard-two-factor-enrol', `${base}/dashboard/sandbox/account/security/two-factor`);
  const secret = Secret.fromBase32((await page.locator('code.secret').innerText()).replace(/\s/g, ''));
  await page.fill('#code', TOTP.generate({ secret }));
  await page.click('form[action$="/two-factor"] button[type=submit]');
  await page.waitForURL(/\/recovery-codes$/);
  await shoot(page, 'dashboard-recovery-codes', null);
  await page.goto(`${base}/dashboard/sandbox/account`);
  await page.getByRole('button', { name: 'Sign out' }).click();
  await page.waitForURL(/signed_out=1/);
  await page.fill('input[name=email]', server.email);
  await page.fill('input[name=password]', server.password);
  await page.click('button[type=submit]');
  await page.waitForURL(/\/sign-in\/code/);
  await shoot(page, 'dashboard-sign-in-code', null);
  process.stdout.write(`Wrote ${Object.keys(devices).length} sizes of each screen to ${path.relative(process.cwd(), outDir)}/\n`);
} finally {
  await browser.close();
  server.stop();
  await rm(dataDir, { recursive: true, force: true });
}
