import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import net, { type AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import type { PGlite } from '@electric-sql/pglite';
import { sql } from 'drizzle-orm';
import pg from 'pg';
import { openPglite, openPostgres, queryRows, type Database } from '../../src/db/client.ts';
import { openTestDatabase, testDatabaseKind } from '../helpers/database.ts';
import { CliProcess, runProcess } from './helpers.ts';

const adminApiKey = 'adm_cli_process_test_0123456789abcdef';

async function freePort(): Promise<number> {
  const server = net.createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise((resolve) => server.close(resolve));
  return port;
}

/**
 * The real binary (`node bin/paysail.mjs`) as a child process, through one database that the
 * commands share in sequence, the way an operator uses them. PGlite: a DATA_DIR seeded from the
 * suite's migrated snapshot (a fresh initdb costs ~10 s). PostgreSQL: an empty database, so
 * `migrate` really creates the schema. Child startup is slow, so spawns are few and reused.
 */
describe('bin/paysail.mjs as a process', () => {
  let dataDir: string;
  let env: Record<string, string>;
  let dropPostgres: (() => Promise<void>) | undefined;
  let postgresUrl: string | undefined;
  let merchant: { id: string; apiKey: string };

  before(async () => {
    dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'paysail-cli-process-'));
    env = { DATA_DIR: dataDir, ADMIN_API_KEY: adminApiKey, SANDBOX_KYC_DELAY_MS: '0' };
    if (testDatabaseKind === 'postgres') {
      const base = process.env.DATABASE_URL ?? '';
      const name = `paysail_cli_${Date.now().toString(36)}_${randomBytes(3).toString('hex')}`;
      const admin = new pg.Client({ connectionString: base });
      await admin.connect();
      await admin.query(`create database "${name}"`);
      await admin.end();
      const url = new URL(base);
      url.pathname = `/${name}`;
      postgresUrl = url.toString();
      env.DATABASE_URL = postgresUrl;
      dropPostgres = async () => {
        const dropper = new pg.Client({ connectionString: base });
        await dropper.connect();
        await dropper.query(`drop database if exists "${name}" with (force)`);
        await dropper.end();
      };
    } else {
      const seed = (await openTestDatabase()) as Database & { client: PGlite };
      const snapshot = await seed.client.dumpDataDir('none');
      await seed.close();
      const seeded = await openPglite({ dataDir, snapshot });
      await seeded.close();
    }
  });
  after(async () => {
    await dropPostgres?.();
    fs.rmSync(dataDir, { recursive: true, force: true });
  });

  async function openDatabase(): Promise<Database> {
    return postgresUrl ? openPostgres(postgresUrl, { max: 1 }) : openPglite({ dataDir });
  }

  test('--help exits 0 on stdout; an unknown command exits 2 with the reason on stderr', async () => {
    const [help, unknown] = await Promise.all([runProcess(['--help'], env), runProcess(['refund', 'everything'], env)]);
    assert.equal(help.code, 0, help.stderr);
    assert.match(help.stdout, /^Paysail operator CLI\n/);
    assert.match(help.stdout, /Exit codes:/);
    assert.equal(unknown.code, 2);
    assert.equal(unknown.stdout, '');
    assert.equal(unknown.stderr, 'paysail: unknown command "refund"\nRun "paysail --help" for the list of commands.\n');
  });

  test('migrate applies the migrations and exits 0', async () => {
    const result = await runProcess(['migrate'], env);
    assert.equal(result.code, 0, result.stderr);
    assert.equal(result.stdout, `migrations applied (${postgresUrl ? 'PostgreSQL' : `PGlite in ${dataDir}`})\n`);
    const database = await openDatabase();
    try {
      const [row] = await queryRows<{ merchants: string | null; customers: string | null }>(database.db, sql`select to_regclass('public.merchants')::text as merchants, to_regclass('public.customers')::text as customers`);
      assert.deepEqual(row, { merchants: 'merchants', customers: 'customers' });
    } finally {
      await database.close();
    }
  });

  test('merchants create prints JSON with a key that the served API accepts', async () => {
    const result = await runProcess(['merchants', 'create', 'Process Test', 'process@example.com', '--json'], env);
    assert.equal(result.code, 0, result.stderr);
    const created = JSON.parse(result.stdout) as { merchant: { id: string }; apiKey: string };
    merchant = { id: created.merchant.id, apiKey: created.apiKey };
    assert.match(merchant.id, /^mer_/);
  });

  test('serve answers /healthz and the API, and exits 0 on SIGTERM', async () => {
    const port = await freePort();
    const server = new CliProcess(['serve', '--port', String(port), '--host', '127.0.0.1'], env);
    try {
      await server.waitForOutput(/Paysail listening on http:\/\/localhost:\d+ \(role all, (PostgreSQL|PGlite in .*)\)\n/);
      const base = `http://127.0.0.1:${port}`;
      const health = await fetch(`${base}/healthz`);
      assert.equal(health.status, 200);
      assert.deepEqual(await health.json(), { status: 'SUCCEEDED', data: { status: 'ok' } });
      const created = await fetch(`${base}/v1/customers?livemode=false`, {
        method: 'POST',
        headers: { authorization: `Basic ${Buffer.from(`${merchant.apiKey}:`).toString('base64')}`, 'content-type': 'application/json' },
        body: JSON.stringify({ referenceId: 'process-customer', signupAt: 1_767_225_600_000, email: 'ada@example.com', firstName: 'Ada', lastName: 'Lovelace' }),
      });
      assert.equal(created.status, 200, await created.clone().text());

      if (!postgresUrl) {
        // PGlite allows one process per data directory: rotating now must fail and leave the key file as it was.
        const keyFile = fs.readFileSync(path.join(dataDir, 'encryption-keys'), 'utf8');
        const refused = await runProcess(['crypto', 'rotate-key'], env);
        assert.equal(refused.code, 1);
        assert.match(refused.stderr, /paysail: The embedded database in .* is in use by process \d+/);
        assert.equal(fs.readFileSync(path.join(dataDir, 'encryption-keys'), 'utf8'), keyFile);
      }
    } finally {
      assert.equal(await server.stop('SIGTERM'), 0, `signal ${String(server.signal)}\nstdout: ${server.stdout}\nstderr: ${server.stderr}`);
    }
  });

  test('worker starts a worker only and exits 0 on SIGTERM', async () => {
    const worker = new CliProcess(['worker'], env);
    try {
      await worker.waitForOutput(/Paysail worker \(role worker, (PostgreSQL|PGlite in .*)\)\n/);
      assert.doesNotMatch(worker.stdout, /listening/);
    } finally {
      assert.equal(await worker.stop('SIGTERM'), 0, `signal ${String(worker.signal)}\nstdout: ${worker.stdout}\nstderr: ${worker.stderr}`);
    }
  });

  test('crypto rotate-key adds a key to the key file and re-encrypts PII under it, with progress on stderr', async () => {
    const keyFile = path.join(dataDir, 'encryption-keys');
    const before = fs.readFileSync(keyFile, 'utf8').trim();
    const result = await runProcess(['crypto', 'rotate-key'], env);
    assert.equal(result.code, 0, result.stderr);
    const match = /^re-encrypted under (k\w+): 1 customers, (?:\d+ [a-z -]+, )+1 merchant PII keys\nevery sealed value is under \1\nnew active key \1 in (.*)\n$/.exec(result.stdout);
    assert.ok(match, result.stdout);
    const [, kid, file] = match;
    assert.equal(file, keyFile);
    assert.match(result.stderr, /customers 1\/1\n(.*\n)*merchant PII keys 1\/1\n/);
    const after = fs.readFileSync(keyFile, 'utf8').trim();
    assert.equal(after, `${after.split(',')[0]},${before}`, 'the new key first, the old ones kept');
    assert.ok(after.startsWith(`${kid}:`));

    const database = await openDatabase();
    try {
      const rows = await queryRows<{ pii: Record<string, string> }>(database.db, sql`select pii from customers`);
      assert.equal(rows.length, 1);
      // One sealed value per customer (`{ record: "v1.<kid>.…" }`).
      const values = Object.values(rows[0]?.pii ?? {});
      assert.deepEqual(Object.keys(rows[0]?.pii ?? {}), ['record']);
      assert.ok(values.every((value) => value.startsWith(`v1.${kid}.`)), 'every PII value sealed under the new key');
    } finally {
      await database.close();
    }
  });
});
