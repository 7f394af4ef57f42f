import assert from 'node:assert/strict';
import fs from 'node:fs';
import net, { type AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import type { PGlite } from '@electric-sql/pglite';
import { sql } from 'drizzle-orm';
import { compactDecrypt } from 'jose';
import * as tar from 'tar';
import { runCli } from '../../src/cli/program.ts';
import { openPglite, queryRows, type Database } from '../../src/db/client.ts';
import { openTestDatabase, testDatabaseKind } from '../helpers/database.ts';
import { assertLedgerInvariants } from '../helpers/ledger.ts';
import { CliProcess, type CliResult } from './helpers.ts';

const adminApiKey = 'adm_backup_test_0123456789abcdef';

async function freePort(): Promise<number> {
  const server = net.createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise((resolve) => server.close(resolve));
  return port;
}

/** Every table's row count, straight from a data directory (no server may hold it). */
async function tableCounts(dataDir: string): Promise<{ counts: Record<string, number>; ledger: { transactions: number; entries: number } }> {
  const database = await openPglite({ dataDir });
  try {
    const tables = await queryRows<{ name: string }>(database.db, sql`select table_name as name from information_schema.tables where table_schema = 'public' and table_type = 'BASE TABLE'`);
    const counts: Record<string, number> = {};
    for (const { name } of tables) {
      const [row] = await queryRows<{ count: number }>(database.db, sql`select count(*)::int as count from ${sql.identifier(name)}`);
      counts[name] = row?.count ?? 0;
    }
    return { counts, ledger: await assertLedgerInvariants(database) };
  } finally {
    await database.close();
  }
}

/**
 * `paysail backup create / verify / restore` on the embedded database, against the real server
 * (`paysail serve`, a child process) on a data directory seeded from the suite's migrated snapshot:
 * a backup under write load, a backup → wipe → restore round trip, the key file written apart,
 * damaged files and an unbalanced ledger, and a restore into a non-empty directory. The commands
 * run in this process through `runCli`, as an operator's shell would run them beside the server.
 * Embedded only by design: the PostgreSQL run has the pg_dump restore drill (backup-postgres.test.ts).
 */
describe('paysail backup (embedded database)', { skip: testDatabaseKind === 'postgres' ? 'embedded (PGlite) backups; the PostgreSQL run has its pg_dump restore drill' : false }, () => {
  let workDir: string;
  let dataDir: string;
  let env: Record<string, string>;
  let server: CliProcess | undefined;
  let base: string;
  let apiKey: string;

  before(async () => {
    workDir = fs.mkdtempSync(path.join(os.tmpdir(), 'paysail-backup-'));
    dataDir = path.join(workDir, 'data');
    // The writers below go as fast as the server answers: the per-key rate limit (100/s) is not the subject here.
    env = { DATA_DIR: dataDir, ADMIN_API_KEY: adminApiKey, SANDBOX_KYC_DELAY_MS: '0', RATE_LIMIT_PER_SECOND: '10000', RATE_LIMIT_BURST: '20000' };
    const seed = (await openTestDatabase()) as Database & { client: PGlite };
    const snapshot = await seed.client.dumpDataDir('none');
    await seed.close();
    const seeded = await openPglite({ dataDir, snapshot });
    await seeded.close();
  });
  after(async () => {
    await server?.stop('SIGTERM');
    fs.rmSync(workDir, { recursive: true, force: true });
  });

  async function startServer(): Promise<void> {
    const port = await freePort();
    server = new CliProcess(['serve', '--port', String(port), '--host', '127.0.0.1'], env);
    await server.waitForOutput(/Paysail listening on .* \(role all, PGlite in .*\)\n/);
    base = `http://127.0.0.1:${port}`;
  }

  async function stopServer(): Promise<void> {
    const running = server;
    server = undefined;
    assert.equal(await running?.stop('SIGTERM'), 0, `stdout: ${running?.stdout}\nstderr: ${running?.stderr}`);
  }

  async function cli(argv: string[], extra: Record<string, string> = {}): Promise<CliResult> {
    let stdout = '';
    let stderr = '';
    const code = await runCli(argv, { env: { ...env, ...extra }, stdout: { write: (text: string) => (stdout += text) }, stderr: { write: (text: string) => (stderr += text) } });
    return { code, stdout, stderr };
  }

  async function api(method: string, url: string, body?: unknown): Promise<{ status: number; data: unknown }> {
    const response = await fetch(`${base}${url}`, {
      method,
      headers: { authorization: `Basic ${Buffer.from(`${apiKey}:`).toString('base64')}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
    const parsed = (await response.json()) as { data?: unknown };
    return { status: response.status, data: response.status === 200 ? parsed.data : parsed };
  }

  let customersCreated = 0;
  const createCustomer = async (reference: string) => {
    const created = await api('POST', '/v1/customers?livemode=false', { referenceId: reference, signupAt: 1_767_225_600_000, email: `${reference}@example.com`, firstName: 'Ada', lastName: 'Lovelace' });
    assert.equal(created.status, 200, JSON.stringify(created.data));
    customersCreated += 1;
  };
  const fund = async (amount: number) => {
    const funded = await api('POST', '/v1/test_helpers/balance/fund?livemode=false', { amount, currency: 'USD' });
    assert.equal(funded.status, 200, JSON.stringify(funded.data));
  };

  test('a backup taken under write load verifies and restores to a state where the ledger balances', async () => {
    await startServer();
    const created = await fetch(`${base}/admin/v1/merchants`, {
      method: 'POST',
      headers: { authorization: `Bearer ${adminApiKey}`, 'content-type': 'application/json' },
      body: JSON.stringify({ name: 'Backup Test', email: 'backup@example.com' }),
    });
    assert.equal(created.status, 200);
    apiKey = ((await created.json()) as { data: { apiKey: string } }).data.apiKey;

    // Four writers, each a bounded run of customer creates and sandbox fundings (ledger postings).
    let running = true;
    const writers = Array.from({ length: 4 }, async (_, writer) => {
      for (let round = 0; round < 60 && running; round += 1) {
        await createCustomer(`load-${writer}-${round}`);
        await fund(100 + round);
      }
    });
    while (customersCreated < 8) {
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    const before = customersCreated;
    const file = path.join(workDir, 'under-load.backup');
    const backup = await cli(['backup', 'create', file]);
    const afterBackup = customersCreated;
    running = false;
    await Promise.all(writers);
    assert.equal(backup.code, 0, backup.stderr);
    assert.match(backup.stdout, /^Backup written to .*under-load\.backup\n {2}taken: .* from the running server/);
    assert.match(backup.stdout, /ledger: +\d+ transactions, \d+ entries, balanced/);
    assert.match(backup.stderr, /warning: .* holds the encryption key file: whoever has it can read every customer's personal data/);
    assert.equal(fs.statSync(file).mode & 0o777, 0o600, 'the backup is readable by its owner only');

    const verified = await cli(['backup', 'verify', file, '--json']);
    assert.equal(verified.code, 0, verified.stderr);
    const report = JSON.parse(verified.stdout) as { ok: boolean; keysChecked: boolean; manifest: { tables: Record<string, number>; ledger: { transactions: number } } };
    assert.equal(report.ok, true);
    assert.equal(report.keysChecked, true);
    const inBackup = report.manifest.tables.customers ?? -1;
    assert.ok(inBackup >= before && inBackup <= afterBackup, `the snapshot is of a moment during the load: ${before} ≤ ${inBackup} ≤ ${afterBackup}`);

    const restoredDir = path.join(workDir, 'restored-under-load');
    const restored = await cli(['backup', 'restore', file], { DATA_DIR: restoredDir });
    assert.equal(restored.code, 0, restored.stderr);
    const { counts, ledger } = await tableCounts(restoredDir);
    assert.deepEqual(counts, report.manifest.tables, 'every table holds the rows the manifest counted');
    assert.equal(ledger.transactions, report.manifest.ledger.transactions);
    assert.ok(ledger.transactions > 0);
  });

  /** The first 100 customers with their PII opened (JWE under the merchant's keys, which the key ring seals). */
  async function customersInPlain(): Promise<unknown> {
    const listed = await api('GET', '/v1/customers?livemode=false&limit=100');
    assert.equal(listed.status, 200);
    const merchants = (await (await fetch(`${base}/admin/v1/merchants`, { headers: { authorization: `Bearer ${adminApiKey}` } })).json()) as { data: Array<{ id: string; name: string }> };
    const merchantId = merchants.data.find((merchant) => merchant.name === 'Backup Test')?.id ?? '';
    const keys = (await (await fetch(`${base}/admin/v1/merchants/${merchantId}/pii_keys`, { headers: { authorization: `Bearer ${adminApiKey}` } })).json()) as { data: Array<{ id: string; key: string }> };
    const open = async (value: unknown): Promise<unknown> => {
      if (typeof value !== 'string' || value.split('.').length !== 5) {
        return value;
      }
      const { kid } = JSON.parse(Buffer.from(value.split('.')[0] ?? '', 'base64url').toString('utf8')) as { kid: string };
      const key = keys.data.find((candidate) => candidate.id === kid);
      assert.ok(key, `the merchant holds PII key ${kid}`);
      return new TextDecoder().decode((await compactDecrypt(value, Buffer.from(key.key, 'base64url'))).plaintext);
    };
    const { customers, hasMore } = listed.data as { customers: Array<Record<string, unknown>>; hasMore: boolean };
    const opened = await Promise.all(customers.map(async (customer) => Object.fromEntries(await Promise.all(Object.entries(customer).map(async ([field, value]) => [field, await open(value)])))));
    return { customers: opened, hasMore };
  }

  test('backup → wipe → restore: the restarted server serves the same data', async () => {
    const balances = await api('GET', '/v1/balance?livemode=false');
    assert.equal(balances.status, 200);
    const customers = (await customersInPlain()) as { customers: Array<{ firstName: unknown }> };
    assert.equal(customers.customers.length, Math.min(customersCreated, 100));
    assert.equal(customers.customers[0]?.firstName, 'Ada', 'PII opened');
    const keyFile = fs.readFileSync(path.join(dataDir, 'encryption-keys'), 'utf8');
    const file = path.join(workDir, 'quiet.backup');
    const backup = await cli(['backup', 'create', file]);
    assert.equal(backup.code, 0, backup.stderr);
    await stopServer();

    // Restoring over the data directory it came from is refused, and touches nothing.
    const entries = fs.readdirSync(dataDir).sort();
    assert.deepEqual(entries, ['encryption-keys', 'pglite'], 'the server removed its socket and lock at shutdown');
    const refused = await cli(['backup', 'restore', file]);
    assert.equal(refused.code, 1);
    assert.match(refused.stderr, /^paysail: DATA_DIR .*data is not empty \(.*\): a restore writes only into an empty or new directory\. Stop the server, move the directory aside/);
    assert.deepEqual(fs.readdirSync(dataDir).sort(), entries);

    fs.rmSync(dataDir, { recursive: true, force: true });
    const restored = await cli(['backup', 'restore', file]);
    assert.equal(restored.code, 0, restored.stderr);
    assert.match(restored.stdout, /^Restored .*quiet\.backup into .*data\n/);
    assert.equal(fs.readFileSync(path.join(dataDir, 'encryption-keys'), 'utf8'), keyFile);
    assert.equal(fs.statSync(path.join(dataDir, 'encryption-keys')).mode & 0o777, 0o600);

    await startServer();
    assert.deepEqual(await api('GET', '/v1/balance?livemode=false'), balances);
    assert.deepEqual(await customersInPlain(), customers, 'the same customers, their PII opened through the restored key file');
    await createCustomer('after-restore');
    await fund(1);
    await stopServer();
  });

  test('the key file written apart: the backup restores only with it', async () => {
    const file = path.join(workDir, 'apart.backup');
    const keysOut = path.join(workDir, 'keys-apart');
    const backup = await cli(['backup', 'create', file, '--key-file-out', keysOut]);
    assert.equal(backup.code, 0, backup.stderr);
    assert.match(backup.stdout, /taken: .* from the data directory/, 'no server ran: the command opened the directory itself');
    assert.match(backup.stderr, /warning: the key file was written apart to .*keys-apart: .*apart\.backup cannot be restored without it/);
    assert.equal(fs.readFileSync(keysOut, 'utf8'), fs.readFileSync(path.join(dataDir, 'encryption-keys'), 'utf8'));
    assert.equal(fs.statSync(keysOut).mode & 0o777, 0o600);

    const again = await cli(['backup', 'create', file]);
    assert.equal(again.code, 1);
    assert.match(again.stderr, /apart\.backup exists: a backup never overwrites a file; choose another name/);
    const onPostgres = await cli(['backup', 'create', path.join(workDir, 'pg.backup')], { DATABASE_URL: 'postgres://paysail@127.0.0.1:1/none' });
    assert.equal(onPostgres.code, 1);
    assert.match(onPostgres.stderr, /runs on PostgreSQL \(DATABASE_URL\): back it up with pg_dump, or base backups and WAL archiving/);
    assert.equal(fs.existsSync(path.join(workDir, 'pg.backup')), false);

    const unchecked = await cli(['backup', 'verify', file]);
    assert.equal(unchecked.code, 0, unchecked.stderr);
    assert.match(unchecked.stdout, /keys not checked: pass the key file with --key-file/);

    const target = path.join(workDir, 'restored-apart');
    const withoutKeys = await cli(['backup', 'restore', file], { DATA_DIR: target });
    assert.equal(withoutKeys.code, 1);
    assert.match(withoutKeys.stderr, /was written apart \(backup create --key-file-out\): pass it with --key-file PATH/);
    assert.equal(fs.existsSync(target), false, 'nothing was written');
    const wrongKeys = path.join(workDir, 'wrong-keys');
    fs.writeFileSync(wrongKeys, `k1:${Buffer.alloc(32, 7).toString('base64')}\n`);
    const wrong = await cli(['backup', 'restore', file, '--key-file', wrongKeys], { DATA_DIR: target });
    assert.equal(wrong.code, 1);
    assert.match(wrong.stderr, /--key-file .*wrong-keys does not match the manifest/);
    const withKeys = await cli(['backup', 'restore', file, '--key-file', keysOut], { DATA_DIR: target });
    assert.equal(withKeys.code, 0, withKeys.stderr);
    assert.equal(fs.readFileSync(path.join(target, 'encryption-keys'), 'utf8'), fs.readFileSync(keysOut, 'utf8'));
  });

  test('verify refuses a damaged file, an altered manifest count and a ledger that does not balance', async () => {
    const good = path.join(workDir, 'quiet.backup');
    const damaged = path.join(workDir, 'damaged.backup');
    const bytes = fs.readFileSync(good);
    bytes[Math.floor(bytes.length / 2)] = (bytes[Math.floor(bytes.length / 2)] ?? 0) ^ 0xff;
    fs.writeFileSync(damaged, bytes);
    const flipped = await cli(['backup', 'verify', damaged]);
    assert.equal(flipped.code, 1);
    assert.match(flipped.stderr, /^paysail: database\.tar\.gz does not match the manifest .*: the file is damaged or was altered\n$/);

    const truncated = path.join(workDir, 'truncated.backup');
    fs.writeFileSync(truncated, fs.readFileSync(good).subarray(0, 4096));
    const cut = await cli(['backup', 'verify', truncated]);
    assert.equal(cut.code, 1);
    assert.match(cut.stderr, /is not a readable Paysail backup|holds no database\.tar\.gz/);

    // A manifest edited to promise another row: the parts still match their checksums, the counts do not.
    const unpacked = path.join(workDir, 'unpacked');
    fs.mkdirSync(unpacked);
    await tar.extract({ file: good, cwd: unpacked });
    const manifest = JSON.parse(fs.readFileSync(path.join(unpacked, 'manifest.json'), 'utf8')) as { tables: Record<string, number> };
    const customers = manifest.tables.customers ?? 0;
    manifest.tables.customers = customers + 1;
    fs.writeFileSync(path.join(unpacked, 'manifest.json'), JSON.stringify(manifest));
    const altered = path.join(workDir, 'altered.backup');
    await tar.create({ file: altered, cwd: unpacked }, fs.readdirSync(unpacked));
    const miscounted = await cli(['backup', 'verify', altered]);
    assert.equal(miscounted.code, 1);
    assert.match(miscounted.stderr, new RegExp(`does not verify:\\n {2}table customers has ${customers} rows; the manifest says ${customers + 1}\\n$`));

    const notBackup = path.join(workDir, 'not-a-backup.txt');
    fs.writeFileSync(notBackup, 'hello\n');
    assert.equal((await cli(['backup', 'verify', notBackup])).code, 1);

    // A cached balance that its entries do not justify: the snapshot is written, and reported.
    const database = await openPglite({ dataDir });
    await database.db.execute(sql`update ledger_accounts set balance = balance + 1 where id = (select id from ledger_accounts where kind = 'available' and balance > 0 order by id limit 1)`);
    await database.close();
    const drift = path.join(workDir, 'drift.backup');
    const created = await cli(['backup', 'create', drift]);
    assert.equal(created.code, 1);
    assert.ok(fs.existsSync(drift), 'the backup is written all the same');
    assert.match(created.stderr, /the backup was written, but what it holds is not sound:\n {2}the (live|sandbox) [A-Z]+ ledger of mer_\w+ sums to 1, not zero\n {2}ledger account \w+ holds \d+, but its entries sum to \d+/);
    const verified = await cli(['backup', 'verify', drift]);
    assert.equal(verified.code, 1);
    assert.match(verified.stdout, /NOT sound[\s\S]*NOT balanced/);
    assert.match(verified.stderr, /does not verify:\n {2}the (live|sandbox) [A-Z]+ ledger of mer_\w+ sums to 1, not zero/);
    const target = path.join(workDir, 'restored-drift');
    fs.mkdirSync(target);
    const restored = await cli(['backup', 'restore', drift], { DATA_DIR: target });
    assert.equal(restored.code, 1);
    assert.match(restored.stderr, /does not verify; nothing was restored/);
    assert.deepEqual(fs.readdirSync(target), []);
  });
});
