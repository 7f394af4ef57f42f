import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { after, describe, test } from 'node:test';
import { onEmbeddedRunOnly } from '../helpers/database.ts';

/**
 * `npm start` semantics through real processes: configuration errors, first start on an empty data
 * directory (demo merchant printed once), the PGlite single-owner lock, graceful SIGTERM, restart.
 * Always on PGlite: the data-directory lock is what is being tested. Each start costs seconds, so
 * these are few. The long test runs what `npm start` runs (scripts/start.mjs: the bundle in dist/,
 * rebuilt first if src/ is newer); the configuration test runs src/main.ts through tsx, as
 * `npm run dev` does.
 */

const repositoryRoot = path.resolve(import.meta.dirname, '..', '..');
const children: ChildProcess[] = [];

interface Started {
  child: ChildProcess;
  output: () => string;
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
}

function baseEnv(extra: Record<string, string>): Record<string, string> {
  const env: Record<string, string> = {};
  for (const [name, value] of Object.entries(process.env)) {
    // The child gets its own configuration: nothing of the test runner's (DATABASE_URL, REDIS_URL, …).
    if (value !== undefined && ['PATH', 'HOME', 'TMPDIR', 'LANG', 'NODE_OPTIONS'].includes(name)) {
      env[name] = value;
    }
  }
  return { ...env, LOG_LEVEL: 'warn', HOST: '127.0.0.1', ...extra };
}

const throughTsx = ['--import', 'tsx', 'src/main.ts'];
const compiled = ['scripts/start.mjs'];
/** The bundle, with every read of Node's undici-backed web globals reported on stderr (the helper). */
const compiledGuarded = ['--import', './test/helpers/web-globals-guard.mjs', 'scripts/start.mjs'];

function start(env: Record<string, string>, entry: readonly string[] = compiled): Started {
  const child = spawn(process.execPath, [...entry], { cwd: repositoryRoot, env, stdio: ['ignore', 'pipe', 'pipe'] });
  children.push(child);
  let output = '';
  child.stdout?.on('data', (chunk: Buffer) => {
    output += chunk.toString('utf8');
  });
  child.stderr?.on('data', (chunk: Buffer) => {
    output += chunk.toString('utf8');
  });
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) => {
    child.on('exit', (code, signal) => resolve({ code, signal }));
  });
  return { child, output: () => output, exited };
}

async function waitForOutput(started: Started, pattern: RegExp, timeoutMs = 180_000): Promise<RegExpMatchArray> {
  const deadline = Date.now() + timeoutMs;
  let exitedEarly = false;
  void started.exited.then(() => {
    exitedEarly = true;
  });
  for (;;) {
    const match = started.output().match(pattern);
    if (match) {
      return match;
    }
    if (exitedEarly) {
      throw new Error(`the process exited before printing ${String(pattern)}:\n${started.output()}`);
    }
    if (Date.now() > deadline) {
      throw new Error(`timed out waiting for ${String(pattern)}:\n${started.output()}`);
    }
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

async function withTimeout<T>(promise: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  try {
    return await Promise.race([promise, new Promise<never>((_resolve, reject) => (timer = setTimeout(() => reject(new Error(`timed out: ${what}`)), ms)))]);
  } finally {
    clearTimeout(timer);
  }
}

async function freePort(): Promise<number> {
  const server = net.createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  await new Promise<void>((resolve) => server.close(() => resolve()));
  assert.ok(address && typeof address === 'object');
  return address.port;
}

after(() => {
  for (const child of children) {
    if (child.exitCode === null && child.signalCode === null && child.pid !== undefined) {
      child.kill('SIGKILL');
    }
  }
});

describe('the service process (src/main.ts)', { skip: onEmbeddedRunOnly }, () => {
  test('an invalid setting stops the start with a non-zero exit naming the variable', async () => {
    const started = start(baseEnv({ PORT: 'abc', DATA_DIR: path.join(os.tmpdir(), 'paysail-never-created') }), throughTsx);
    const { code } = await withTimeout(started.exited, 120_000, 'exit on bad config');
    assert.notEqual(code, 0);
    assert.match(started.output(), /PORT/);
    assert.match(started.output(), /invalid configuration/);
    assert.equal(fs.existsSync(path.join(os.tmpdir(), 'paysail-never-created')), false, 'nothing was created');
  });

  test('first start prints the demo merchant once; the data directory has one owner; SIGTERM exits cleanly; a restart keeps the data', async () => {
    const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'paysail-e2e-'));
    try {
      const port = await freePort();
      const env = baseEnv({ PORT: String(port), DATA_DIR: dataDir, PUBLIC_URL: `http://127.0.0.1:${port}` });
      const first = start(env, compiledGuarded);
      const [, apiKey] = await waitForOutput(first, /API key:\s+(sk_\S+)/);
      await waitForOutput(first, /listening on/);
      assert.doesNotMatch(first.output(), /web-global-read/, 'no start loads undici: FormData, fetch and the like are read by no part of a start');
      assert.ok(apiKey);
      const [, adminKey] = first.output().match(/Admin API key[^:]*:\s+(adm_\S+)/) ?? [];
      assert.ok(adminKey, 'without ADMIN_API_KEY a generated admin key is printed on first start');
      assert.match(first.output(), /Demo merchant mer_/);
      assert.match(first.output(), /Dashboard login:/);
      const base = `http://127.0.0.1:${port}`;
      const authorization = `Basic ${Buffer.from(`${apiKey}:`).toString('base64')}`;

      const health = await fetch(`${base}/healthz`);
      assert.equal(health.status, 200);
      assert.ok(health.headers.get('request-id'));
      // Read from the repository at run time, not compiled: found from dist/ as from src/.
      const guide = await fetch(`${base}/docs/guides/quickstart`);
      assert.equal(guide.status, 200);
      assert.match(await guide.text(), /<h1[^>]*>Quick start\b/);
      const created = await fetch(`${base}/v1/customers?livemode=false`, {
        method: 'POST',
        headers: { authorization, 'content-type': 'application/json' },
        body: JSON.stringify({ referenceId: 'e2e-user', signupAt: Date.now() }),
      });
      assert.equal(created.status, 200);
      const customer = ((await created.json()) as { data: { id: string; livemode: boolean } }).data;
      assert.equal(customer.livemode, false);
      const liveAttempt = await fetch(`${base}/v1/customers`, { method: 'POST', headers: { authorization, 'content-type': 'application/json' }, body: JSON.stringify({ referenceId: 'e2e-live', signupAt: 1 }) });
      assert.equal(liveAttempt.status, 403, 'the demo merchant is sandbox-only');
      const merchants = await fetch(`${base}/admin/v1/merchants`, { headers: { authorization: `Bearer ${String(adminKey)}` } });
      assert.equal(merchants.status, 200);

      // The printed dashboard login works in the bundle (a sign-in sets cookies: the bundled cookie
      // package once answered 500 here under `npm start` only).
      const [, email, password] = first.output().match(/Dashboard login:\s+(\S+) \/ (\S+)/) ?? [];
      assert.ok(email && password, first.output());
      const signInPage = await fetch(`${base}/dashboard/sign-in`);
      assert.equal(signInPage.status, 200, await signInPage.clone().text());
      const csrfCookie = signInPage.headers.getSetCookie().map((cookie) => cookie.split(';')[0]).join('; ');
      const [, csrf] = /name="_csrf" value="([^"]+)"/.exec(await signInPage.text()) ?? [];
      assert.ok(csrfCookie && csrf, 'the sign-in form carries its CSRF token and cookie');
      const signedIn = await fetch(`${base}/dashboard/sign-in`, {
        method: 'POST',
        redirect: 'manual',
        headers: { cookie: csrfCookie, 'content-type': 'application/x-www-form-urlencoded' },
        body: new URLSearchParams({ email, password, _csrf: csrf }).toString(),
      });
      assert.equal(signedIn.status, 303, await signedIn.text());
      const session = signedIn.headers.getSetCookie().map((cookie) => cookie.split(';')[0]).join('; ');
      const overview = await fetch(new URL(String(signedIn.headers.get('location')), base), { headers: { cookie: session } });
      assert.equal(overview.status, 200, 'the dashboard opens after signing in with the printed login');

      // A logo upload through the bundle: the multipart parser is loaded on this first upload.
      const brandingUrl = `${base}/dashboard/sandbox/settings/branding`;
      const brandingPage = await fetch(brandingUrl, { headers: { cookie: session } });
      assert.equal(brandingPage.status, 200);
      const [, formCsrf] = /name="_csrf" value="([^"]+)"/.exec(await brandingPage.text()) ?? [];
      const cookies = [session, ...brandingPage.headers.getSetCookie().map((cookie) => cookie.split(';')[0])].join('; ');
      const form = new FormData();
      form.set('_csrf', String(formCsrf));
      form.set('displayName', 'Demo Books');
      form.set('logo', new Blob([new Uint8Array([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, ...new Array<number>(40).fill(9)])], { type: 'image/png' }), 'logo.png');
      const uploaded = await fetch(brandingUrl, { method: 'POST', redirect: 'manual', headers: { cookie: cookies }, body: form });
      assert.equal(uploaded.status, 303, await uploaded.text());
      const branded = await fetch(`${base}/admin/v1/merchants/${String(/Demo merchant (mer_\S+)/.exec(first.output())?.[1])}/branding`, { headers: { authorization: `Bearer ${String(adminKey)}` } });
      const brandingData = ((await branded.json()) as { data: { displayName: string; logoUrl: string | null } }).data;
      assert.equal(brandingData.displayName, 'Demo Books');
      assert.match(String(brandingData.logoUrl), /\.png$/, 'the uploaded logo was saved');

      // A second process on the same data directory is refused while the first runs.
      const second = start(env);
      const { code: secondCode } = await withTimeout(second.exited, 180_000, 'the second process to give up');
      assert.notEqual(secondCode, 0);
      assert.match(second.output(), new RegExp(`in use by process ${String(first.child.pid)}`));
      assert.equal((await fetch(`${base}/healthz`)).status, 200, 'the first process is unaffected');

      first.child.kill('SIGTERM');
      const firstExit = await withTimeout(first.exited, 90_000, 'graceful shutdown');
      assert.deepEqual(firstExit, { code: 0, signal: null });
      assert.equal(fs.existsSync(path.join(dataDir, 'paysail.lock')), false, 'the lock is released');

      const restarted = start(env);
      await waitForOutput(restarted, /listening on/);
      const read = await fetch(`${base}/v1/customers/${customer.id}`, { headers: { authorization } });
      assert.equal(read.status, 200, 'data and the API key survive the restart');
      assert.doesNotMatch(restarted.output(), /Demo merchant|API key:|Admin API key|Dashboard login/, 'the banner is printed once, on the first start only');
      restarted.child.kill('SIGTERM');
      assert.deepEqual(await withTimeout(restarted.exited, 90_000, 'second shutdown'), { code: 0, signal: null });
    } finally {
      fs.rmSync(dataDir, { recursive: true, force: true });
    }
  });
});
