import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { and, eq, sql } from 'drizzle-orm';
import { cliPayoutMethods } from '../../src/cli/customers.ts';
import { commands } from '../../src/cli/program.ts';
import { createKeyRing, generateKeySpec, parseKeySpec } from '../../src/crypto/keyring.ts';
import { queryRows } from '../../src/db/client.ts';
import { apiKeys, customers, emails, fraudImports, ledgerAccounts, merchantPiiKeys, merchants, payments } from '../../src/db/schema/index.ts';
import { payoutMethods } from '../../src/modules/customers/rules.ts';
import { enqueueEmail } from '../../src/modules/email/enqueue.ts';
import { createCustomer } from '../helpers/assertions.ts';
import { createTestContext, json, type TestContext, type TestMerchant } from '../helpers/context.ts';
import { createPage, payPage, testCards } from '../helpers/payment-pages.ts';
import { runInProcess } from './helpers.ts';

/**
 * Every command's logic, run in this process through the same `runCli` as `bin/paysail.mjs`, on the
 * test context's real platform and database (PGlite or PostgreSQL). The binary itself (spawning,
 * exit codes of the process, serve/worker/migrate/rotate-key) is covered by process.test.ts, and
 * `listen` by listen.test.ts.
 */
describe('paysail CLI commands (in process, real platform)', () => {
  const oldKey = parseKeySpec(generateKeySpec('old'));
  let context: TestContext;
  let workDir: string;

  before(async () => {
    context = await createTestContext({ keyRing: createKeyRing(oldKey) });
    workDir = fs.mkdtempSync(path.join(os.tmpdir(), 'paysail-cli-'));
  });
  after(async () => {
    await context.close();
    fs.rmSync(workDir, { recursive: true, force: true });
  });

  const cli = (...argv: string[]) => runInProcess(context.platform, argv);
  const merchantCount = async () => (await context.database.db.select({ id: merchants.id }).from(merchants)).length;
  const eventsStatus = async (apiKey: string, livemode: boolean) => (await context.request({ method: 'GET', url: `/v1/events?livemode=${livemode}`, apiKey })).statusCode;

  test('--help lists every command and the exit codes; each command has its own help with every option', async () => {
    const program = await cli('--help');
    assert.equal(program.code, 0);
    for (const command of commands) {
      assert.match(program.stdout, new RegExp(`^  ${command.name} +\\S`, 'm'), command.name);
    }
    assert.match(program.stdout, /Exit codes:\n {2}0 {2}success\n {2}1 {2}the command failed.*\n {2}2 {2}usage error/);

    for (const command of commands) {
      const help = await cli(...command.name.split(' '), '--help');
      assert.equal(help.code, 0, command.name);
      assert.ok(help.stdout.startsWith(`Usage: paysail ${command.name}`), help.stdout);
      assert.match(help.stdout, /Exit codes:/);
      for (const flag of Object.keys(command.flags)) {
        assert.match(help.stdout, new RegExp(`^  --${flag}\\b`, 'm'), `${command.name} --${flag}`);
      }
      assert.equal((await cli('help', ...command.name.split(' '))).stdout, help.stdout, 'help COMMAND shows the same');
    }
    const group = await cli('help', 'keys');
    assert.equal(group.code, 0);
    assert.match(group.stdout, /paysail keys create MERCHANT_ID.*\n.*\n\s+paysail keys list MERCHANT_ID.*\n.*\n\s+paysail keys revoke MERCHANT_ID KEY_ID/);
    const groupHelp = await cli('keys', '--help');
    assert.equal(groupHelp.code, 0, `a group's --help lists its commands, as docs/cli.md says: ${groupHelp.stderr}`);
    assert.equal(groupHelp.stdout, group.stdout);
    assert.equal((await cli('balance', '-h')).stdout, (await cli('help', 'balance')).stdout);
    assert.match((await cli('--version')).stdout, /^\d+\.\d+\.\d+\n$/);
  });

  test('usage errors exit 2, name the problem and the usage, and touch nothing', async () => {
    const before = await merchantCount();
    const cases: Array<[string[], RegExp, Record<string, string>?]> = [
      [[], /^Paysail operator CLI/],
      [['frobnicate'], /unknown command "frobnicate"/],
      [['merchants'], /"merchants" needs a command: merchants create, merchants list, merchants enable-live/],
      [['merchants', 'rename'], /no command "merchants rename"/],
      [['merchants', 'create', 'Acme'], /missing EMAIL\nUsage: paysail merchants create NAME EMAIL \[options\]/],
      [['merchants', 'create', 'Acme', 'not-an-email'], /EMAIL must be a valid e-mail address/],
      [['merchants', 'create', ' ', 'ops@example.com'], /NAME must not be blank/],
      [['merchants', 'list', 'extra'], /unexpected argument "extra"/],
      [['keys', 'create', 'mer_x', '--bogus'], /unknown option --bogus/],
      [['keys', 'create', 'mer_x', '--name'], /--name needs a value/],
      [['fraud', 'import', '--network', 'amex', 'file.csv'], /--network must be one of visa, mastercard, got "amex"/],
      [['fraud', 'import', 'file.csv'], /--network is required/],
      [['fraud', 'import', '--network', 'visa', '--livemode=maybe', 'file.csv'], /--livemode must be true or false/],
      [['crypto', 'generate-key', 'bad id!'], /KID must be 1-32 characters/],
      [['serve', '--port', 'http'], /--port must be an integer from 0 to 65535, got "http"/],
      [['serve', '--role', 'everything'], /--role must be one of all, api, worker/],
      [['worker', '--port', '4000'], /unknown option --port/],
      [['listen'], /--forward-to URL is required/],
      [['listen', '--forward-to', 'http://127.0.0.1:9/hook'], /an API key is required: set PAYSAIL_API_KEY/],
      [['listen', '--forward-to', 'ftp://127.0.0.1/hook'], /--forward-to must be an http\(s\) URL/, { PAYSAIL_API_KEY: 'sk_x' }],
      [['listen', '--forward-to', 'http://127.0.0.1:9/hook', '--interval', '5'], /--interval must be an integer from 100 to 60000/, { PAYSAIL_API_KEY: 'sk_x' }],
      [['listen', '--forward-to', 'http://127.0.0.1:9/hook', '--secret', 'plain'], /--secret must start with whsec_/, { PAYSAIL_API_KEY: 'sk_x' }],
    ];
    for (const [argv, message, env] of cases) {
      const result = await runInProcess(context.platform, argv, { env: env ?? {} });
      assert.equal(result.code, 2, `${argv.join(' ')}: ${result.stderr}`);
      assert.match(result.stderr, message, argv.join(' '));
      assert.equal(result.stdout, '', argv.join(' '));
    }
    assert.equal(await merchantCount(), before);
  });

  test('providers check with no provider configured says so and exits 0; --json lists none', async () => {
    assert.equal(context.platform.providerChecks.length, 0);
    const text = await cli('providers', 'check');
    assert.equal(text.code, 0, text.stderr);
    assert.match(text.stdout, /No live provider is configured/);
    const asJson = await cli('providers', 'check', '--json');
    assert.equal(asJson.code, 0, asJson.stderr);
    assert.deepEqual(JSON.parse(asJson.stdout), { providers: [] });
  });

  test('merchants create prints the key and login once; list shows it; enable-live gives live mode', async () => {
    const created = await cli('merchants', 'create', 'Acme Payouts', 'Ops@Acme.example', '--json');
    assert.equal(created.code, 0, created.stderr);
    const body = JSON.parse(created.stdout) as { merchant: { id: string; liveEnabled: boolean }; apiKey: string; dashboardUser: { email: string; password: string } };
    assert.equal(body.merchant.liveEnabled, false);
    assert.equal(body.dashboardUser.email, 'ops@acme.example');
    assert.equal(await eventsStatus(body.apiKey, false), 200, 'the printed key works in sandbox');
    assert.equal(await eventsStatus(body.apiKey, true), 403, 'and not in live mode yet');

    const text = await cli('merchants', 'create', 'Beta', 'beta@example.com');
    assert.equal(text.code, 0, text.stderr);
    assert.match(text.stdout, /^Merchant mer_\w+ created: Beta \(sandbox only\)\n {2}API key: +sk_\w+_[\w-]+\n {2}Dashboard login: +beta@example\.com \/ \S+\nShown once/);

    const duplicate = await cli('merchants', 'create', 'Acme again', 'ops@acme.example');
    assert.equal(duplicate.code, 1);
    assert.match(duplicate.stderr, /^paysail: email is already used by another dashboard user\n$/);

    const list = await cli('merchants', 'list');
    assert.equal(list.code, 0);
    assert.match(list.stdout, new RegExp(`^${body.merchant.id}\\tsandbox\\tAcme Payouts\\tops@acme\\.example$`, 'm'));
    const listed = JSON.parse((await cli('merchants', 'list', '--json')).stdout) as Array<{ id: string; liveEnabled: boolean }>;
    assert.equal(listed.length, await merchantCount());
    assert.equal(listed.find((merchant) => merchant.id === body.merchant.id)?.liveEnabled, false);

    const enabled = await cli('merchants', 'enable-live', body.merchant.id);
    assert.equal(enabled.code, 0, enabled.stderr);
    assert.equal(enabled.stdout, `Merchant ${body.merchant.id} (Acme Payouts) now has live and sandbox mode\n`);
    assert.match(enabled.stderr, /^paysail: warning: WEBHOOK_ALLOW_PRIVATE_TARGETS is true on this installation/, 'the test server allows private targets: the operator is warned');
    const [row] = await context.database.db.select().from(merchants).where(eq(merchants.id, body.merchant.id));
    assert.equal(row?.liveEnabled, true);
    assert.equal(await eventsStatus(body.apiKey, true), 200, 'live mode works at once');
    assert.match((await cli('merchants', 'list')).stdout, new RegExp(`^${body.merchant.id}\\tlive\\+sandbox\\t`, 'm'));
    assert.equal((await cli('merchants', 'enable-live', body.merchant.id)).code, 0, 'idempotent');

    const unknown = await cli('merchants', 'enable-live', 'mer_unknown');
    assert.equal(unknown.code, 1);
    assert.match(unknown.stderr, /^paysail: No merchant found with id 'mer_unknown'\n$/);
  });

  test('keys create prints a working key once; list shows it; revoke refuses it at once and only under its own merchant', async () => {
    const owner: TestMerchant = await context.createMerchant();
    const other = await context.createMerchant();
    const created = await cli('keys', 'create', owner.id, '--name', 'CI deploy', '--json');
    assert.equal(created.code, 0, created.stderr);
    const key = JSON.parse(created.stdout) as { id: string; name: string; apiKey: string };
    assert.equal(key.name, 'CI deploy');
    assert.ok(key.apiKey.startsWith(`sk_${key.id.slice('key_'.length)}_`));
    assert.equal(await eventsStatus(key.apiKey, false), 200);
    const [stored] = await context.database.db.select().from(apiKeys).where(eq(apiKeys.id, key.id));
    // The secret is everything after `sk_<lookup>_` (base64url, so it may itself contain `_`).
    const secret = key.apiKey.slice(`sk_${key.id.slice('key_'.length)}_`.length);
    assert.equal(secret.length, 43);
    assert.ok(stored && !JSON.stringify(stored).includes(secret), 'only a hash is stored');

    const text = await cli('keys', 'create', owner.id);
    assert.match(text.stdout, /^API key key_\w+ \(CLI key\) created for mer_\w+:\n {2}(sk_\w+_[\w-]+)\nShown once/);
    const second = /\n {2}(sk_\S+)\n/.exec(text.stdout)?.[1] ?? '';

    const list = await cli('keys', 'list', owner.id);
    assert.match(list.stdout, new RegExp(`^${key.id}\\t…${key.apiKey.slice(-4)}\\tactive\\t.*\\tCI deploy$`, 'm'));

    const foreign = await cli('keys', 'revoke', other.id, key.id);
    assert.equal(foreign.code, 1, "another merchant's id cannot revoke it");
    assert.match(foreign.stderr, /No API key found/);
    assert.equal(await eventsStatus(key.apiKey, false), 200);

    const revoked = await cli('keys', 'revoke', owner.id, key.id);
    assert.equal(revoked.code, 0, revoked.stderr);
    assert.equal(revoked.stdout, `API key ${key.id} of ${owner.id} revoked\n`);
    assert.equal(await eventsStatus(key.apiKey, false), 401, 'refused at once');
    assert.equal((await cli('keys', 'revoke', owner.id, key.id)).code, 0, 'revoking again is not an error');

    const bySecret = await cli('keys', 'revoke', owner.id, second);
    assert.equal(bySecret.code, 0, 'the secret key itself names its id');
    assert.equal(await eventsStatus(second, false), 401);
    assert.equal(await eventsStatus(owner.apiKey, false), 200, 'other keys keep working');

    const listed = JSON.parse((await cli('keys', 'list', owner.id, '--json')).stdout) as Array<{ id: string; revokedAt: number | null }>;
    const secondId = `key_${second.split('_')[1] ?? ''}`;
    assert.deepEqual(new Map(listed.map((entry) => [entry.id, entry.revokedAt !== null])), new Map([[`key_${owner.apiKey.split('_')[1] ?? ''}`, false], [key.id, true], [secondId, true]]));
    assert.equal((await cli('keys', 'create', 'mer_unknown')).code, 1);
    assert.equal((await cli('keys', 'list', 'mer_unknown')).code, 1);
  });

  test('merchants settings shows the FRAUD_REPORTED delivery setting and turns it on and off', async () => {
    const merchant = await context.createMerchant();
    const stored = async () => (await context.database.db.select().from(merchants).where(eq(merchants.id, merchant.id)))[0]?.fraudReportWebhooksEnabled;
    assert.equal(await stored(), false, 'off for a new merchant');

    const shown = await cli('merchants', 'settings', merchant.id);
    assert.equal(shown.code, 0, shown.stderr);
    assert.match(shown.stdout, new RegExp(`^Merchant ${merchant.id} \\(.*\\):\\n {2}fraud-report-webhooks {2}off {2}\\(FRAUD_REPORTED events are not delivered`));

    const enabled = await cli('merchants', 'settings', merchant.id, '--fraud-report-webhooks', 'on');
    assert.equal(enabled.code, 0, enabled.stderr);
    assert.match(enabled.stdout, /updated:\n {2}fraud-report-webhooks {2}on {2}\(FRAUD_REPORTED events are delivered/);
    assert.equal(await stored(), true);
    const admin = await context.admin('GET', `/admin/v1/merchants/${merchant.id}`);
    assert.equal(json<{ data: { fraudReportWebhooksEnabled: boolean } }>(admin).data.fraudReportWebhooksEnabled, true, 'the admin API sees the change');

    const disabled = await cli('merchants', 'settings', '--fraud-report-webhooks=off', merchant.id, '--json');
    assert.equal(disabled.code, 0, disabled.stderr);
    assert.deepEqual(
      (({ id, fraudReportWebhooksEnabled }) => ({ id, fraudReportWebhooksEnabled }))(JSON.parse(disabled.stdout) as { id: string; fraudReportWebhooksEnabled: boolean }),
      { id: merchant.id, fraudReportWebhooksEnabled: false },
    );
    assert.equal(await stored(), false);

    const unknown = await cli('merchants', 'settings', 'mer_unknown', '--fraud-report-webhooks', 'on');
    assert.equal(unknown.code, 1);
    assert.match(unknown.stderr, /^paysail: No merchant found with id 'mer_unknown'\n$/);

    for (const [argv, message] of [
      [['merchants', 'settings', merchant.id, '--fraud-report-webhooks', 'yes'], /--fraud-report-webhooks must be one of on, off, got "yes"/],
      [['merchants', 'settings', merchant.id, '--fraud-report-webhooks'], /--fraud-report-webhooks needs a value \(on\|off\)/],
      [['merchants', 'settings'], /missing MERCHANT_ID\nUsage: paysail merchants settings MERCHANT_ID \[options\]/],
    ] as const) {
      const result = await cli(...argv);
      assert.equal(result.code, 2, `${argv.join(' ')}: ${result.stderr}`);
      assert.match(result.stderr, message);
      assert.equal(result.stdout, '');
    }
    assert.equal(await stored(), false, 'usage errors change nothing');
  });

  test('merchants settings --rate-limit sizes the merchant-wide limit, and default resets it', async () => {
    const merchant = await context.createMerchant();
    const stored = async () => {
      const [row] = await context.database.db.select().from(merchants).where(eq(merchants.id, merchant.id));
      return [row?.rateLimitPerSecond, row?.rateLimitBurst];
    };
    const shown = await cli('merchants', 'settings', merchant.id);
    assert.match(shown.stdout, /\n {2}rate-limit {13}default {2}\(requests per second \/ burst over all the merchant's API keys\)/);
    const set = await cli('merchants', 'settings', merchant.id, '--rate-limit', '50/100');
    assert.equal(set.code, 0, set.stderr);
    assert.match(set.stdout, /updated:[\s\S]*rate-limit {13}50\/100/);
    assert.deepEqual(await stored(), [50, 100]);
    const refused = await cli('merchants', 'settings', merchant.id, '--rate-limit', '100/50');
    assert.equal(refused.code, 1);
    assert.match(refused.stderr, /rateLimitBurst/);
    assert.deepEqual(await stored(), [50, 100], 'a refused change changes nothing');
    const usage = await cli('merchants', 'settings', merchant.id, '--rate-limit', 'fast');
    assert.equal(usage.code, 2);
    assert.match(usage.stderr, /--rate-limit must be RATE\/BURST/);
    const reset = await cli('merchants', 'settings', merchant.id, '--rate-limit', 'default', '--json');
    assert.equal(reset.code, 0, reset.stderr);
    assert.deepEqual((({ rateLimitPerSecond, rateLimitBurst }) => [rateLimitPerSecond, rateLimitBurst])(JSON.parse(reset.stdout) as { rateLimitPerSecond: null; rateLimitBurst: null }), [null, null]);
    assert.deepEqual(await stored(), [null, null]);
  });

  test('customers set-payout-methods replaces supportedPayoutMethods, through the same service as the admin API', async () => {
    assert.deepEqual([...cliPayoutMethods], [...payoutMethods], "the CLI's list is the service's");
    const merchant = await context.createMerchant();
    const customer = await createCustomer(context, merchant.apiKey, { referenceId: 'cli-payout-methods', email: 'payee@example.com' });
    const customerId = String(customer.id);
    const readMethods = async () =>
      json<{ data: { supportedPayoutMethods?: string[] } }>(await context.request({ method: 'GET', url: `/v1/customers/${customerId}?livemode=false`, apiKey: merchant.apiKey })).data
        .supportedPayoutMethods;

    const both = await cli('customers', 'set-payout-methods', customerId, 'BANK_TRANSFER,CRYPTO_WALLET');
    assert.equal(both.code, 0, both.stderr);
    assert.equal(both.stdout, `Customer ${customerId} (sandbox) supports payouts by BANK_TRANSFER, CRYPTO_WALLET\n`);
    assert.deepEqual(await readMethods(), ['BANK_TRANSFER', 'CRYPTO_WALLET'], 'the merchant reads the new list');

    const one = await cli('customers', 'set-payout-methods', customerId, 'crypto_wallet', '--json');
    assert.equal(one.code, 0, one.stderr);
    const body = JSON.parse(one.stdout) as { id: string; livemode: boolean; supportedPayoutMethods: string[] };
    assert.deepEqual([body.id, body.livemode, body.supportedPayoutMethods], [customerId, false, ['CRYPTO_WALLET']]);
    assert.deepEqual(await readMethods(), ['CRYPTO_WALLET']);

    const unknown = await cli('customers', 'set-payout-methods', 'cus_unknown', 'BANK_TRANSFER');
    assert.equal(unknown.code, 1);
    assert.match(unknown.stderr, /^paysail: No customer found with id 'cus_unknown'\n$/);

    for (const [argv, message] of [
      [['customers', 'set-payout-methods', customerId], /missing METHODS\nUsage: paysail customers set-payout-methods CUSTOMER_ID METHODS \[options\]/],
      [['customers', 'set-payout-methods', customerId, 'PAYPAL,BANK_TRANSFER'], /unknown payout method "PAYPAL": use BANK_TRANSFER, CRYPTO_WALLET/],
      [['customers', 'set-payout-methods', customerId, 'BANK_TRANSFER,bank_transfer'], /METHODS names a method twice/],
      [['customers', 'set-payout-methods', customerId, 'BANK_TRANSFER,'], /METHODS must be a comma-separated list of BANK_TRANSFER, CRYPTO_WALLET/],
      [['customers', 'set-payout-methods', customerId, ''], /METHODS must be a comma-separated list/],
      [['customers', 'set-payout-methods', customerId, 'BANK_TRANSFER', 'CRYPTO_WALLET'], /unexpected argument "CRYPTO_WALLET"/],
      [['customers'], /"customers" needs a command: customers set-payout-methods/],
    ] as const) {
      const result = await cli(...argv);
      assert.equal(result.code, 2, `${argv.join(' ')}: ${result.stderr}`);
      assert.match(result.stderr, message, argv.join(' '));
      assert.equal(result.stdout, '');
    }
    assert.deepEqual(await readMethods(), ['CRYPTO_WALLET'], 'usage errors change nothing');
    assert.match((await cli('customers', 'set-payout-methods', '--help')).stdout, /METHODS is a comma-separated list of BANK_TRANSFER, CRYPTO_WALLET/);
  });

  test('balance credit adds to the live available balance, like the admin API, and prints the balance', async () => {
    const merchant = await context.createMerchant();
    assert.equal((await cli('merchants', 'enable-live', merchant.id)).code, 0);
    const liveBalance = async () =>
      json<{ data: Array<{ currency: string; available: number; reserved: number }> }>(
        await context.request({ method: 'GET', url: '/v1/balance?livemode=true', apiKey: merchant.apiKey }),
      ).data.find((balance) => balance.currency === 'USDC');

    const sandboxBalances = async () => json<{ data: unknown[] }>(await context.request({ method: 'GET', url: '/v1/balance?livemode=false', apiKey: merchant.apiKey })).data;
    const sandboxBefore = await sandboxBalances();
    const credited = await cli('balance', 'credit', merchant.id, '--amount', '150000', '--currency', 'USDC');
    assert.equal(credited.code, 0, credited.stderr);
    assert.match(credited.stdout, new RegExp(`^Credited 1500\\.00 USDC to the live balance of ${merchant.id} \\(.*\\)\\n {2}available 1500\\.00, reserved 0\\.00, in flight 0\\.00 USDC\\n$`));
    assert.equal(credited.stderr, '', 'no warning for a live merchant');
    assert.equal((await liveBalance())?.available, 150000, 'the merchant sees the funds in live mode');

    const again = await cli('balance', 'credit', merchant.id, '--amount=5', '--currency=USDC', '--json');
    assert.equal(again.code, 0, again.stderr);
    assert.deepEqual(JSON.parse(again.stdout), { livemode: true, currency: 'USDC', available: 150005, reserved: 0, inFlight: 0 });
    assert.equal((await liveBalance())?.available, 150005, 'each run credits again');
    assert.deepEqual(await sandboxBalances(), sandboxBefore, 'the sandbox balance is untouched');

    const sandboxOnly = await context.createMerchant();
    const early = await cli('balance', 'credit', sandboxOnly.id, '--amount', '100', '--currency', 'USD');
    assert.equal(early.code, 0, early.stderr);
    assert.match(early.stderr, new RegExp(`note: ${sandboxOnly.id} has no live mode yet`));

    const ledgerRows = async (merchantId: string) => (await context.database.db.select().from(ledgerAccounts).where(eq(ledgerAccounts.merchantId, merchantId))).length;
    const unknown = await cli('balance', 'credit', 'mer_unknown', '--amount', '100', '--currency', 'USDC');
    assert.equal(unknown.code, 1);
    assert.match(unknown.stderr, /^paysail: No merchant found with id 'mer_unknown'\n$/);
    assert.equal(await ledgerRows('mer_unknown'), 0, 'no ledger for an unknown merchant');

    for (const [argv, message] of [
      [['balance', 'credit', merchant.id, '--currency', 'USDC'], /--amount is required/],
      [['balance', 'credit', merchant.id, '--amount', '100'], /--currency is required/],
      [['balance', 'credit', merchant.id, '--amount', '12.50', '--currency', 'USDC'], /--amount must be an integer number of minor units from 1 to 1000000000000, got "12.50"/],
      [['balance', 'credit', merchant.id, '--amount', '0', '--currency', 'USDC'], /--amount must be an integer/],
      [['balance', 'credit', merchant.id, '--amount', '1000000000001', '--currency', 'USDC'], /--amount must be an integer/],
      [['balance', 'credit', merchant.id, '--amount', '100', '--currency', 'EUR'], /--currency must be one of USDC, USD, got "EUR"/],
      [['balance', 'credit', '--amount', '100', '--currency', 'USDC'], /missing MERCHANT_ID/],
      [['balance'], /"balance" needs a command: balance credit/],
    ] as const) {
      const result = await cli(...argv);
      assert.equal(result.code, 2, `${argv.join(' ')}: ${result.stderr}`);
      assert.match(result.stderr, message, argv.join(' '));
      assert.equal(result.stdout, '');
    }
    assert.equal((await liveBalance())?.available, 150005, 'usage errors change nothing');
  });

  test('fraud import reports matched payments, lists duplicates and unmatched rows, and shows progress on stderr', async () => {
    const merchant = await context.createMerchant();
    const page = await createPage(context, merchant, { amount: 1234 });
    const paid = json<{ data: { paymentId: string } }>(await payPage(context, merchant, page.id, testCards.visaCredit)).data;
    const [payment] = await context.database.db.select().from(payments).where(eq(payments.id, paid.paymentId));
    const day = context.clock.now().toISOString().slice(0, 10);
    const file = path.join(workDir, 'tc40.csv');
    fs.writeFileSync(
      file,
      [
        'transaction_id,card_bin,card_last4,transaction_date,transaction_amount,transaction_currency,fraud_type,fraud_reported_date,fraud_amount,fraud_currency',
        `${String(payment?.networkTransactionId)},424242,4242,${day},12.34,USD,6,2031-02-03 04:05:06,,`,
        `,424242,4242,${day},99.99,USD,1,2031-02-07,,`,
      ].join('\n'),
    );

    const imported = await cli('fraud', 'import', '--network', 'visa', '--livemode=false', file);
    assert.equal(imported.code, 0, imported.stderr);
    assert.match(imported.stdout, /^Import fim_\w+ \(visa, sandbox\): 2 rows, 1 reports created, 0 duplicates, 1 unmatched\n/);
    assert.match(imported.stdout, new RegExp(`  line 2: reported ${paid.paymentId}\n`));
    assert.match(imported.stdout, / {2}line 3: not imported: no matching payment \(424242\*+4242, \d{4}-\d{2}-\d{2}, 9999 USD\)\n/);
    assert.match(imported.stderr, /importing rows 0\/2\n(.*\n)*importing rows 2\/2\n$/, 'plain n/total lines when stderr is not a terminal');
    const [event] = await queryRows<{ count: number }>(context.database.db, sql`select count(*)::int as count from events where type = 'FRAUD_REPORTED' and data->>'fraudReportId' = ${paid.paymentId}`);
    assert.equal(event?.count, 1);
    const report = await context.request({ method: 'GET', url: `/v1/fraud_reports/${paid.paymentId}`, apiKey: merchant.apiKey });
    assert.equal(report.statusCode, 200, 'the merchant sees the report');

    const again = await runInProcess(context.platform, ['fraud', 'import', '--network', 'visa', '--livemode=false', '--json', file], { tty: true });
    assert.equal(again.code, 0, again.stderr);
    const result = JSON.parse(again.stdout) as { import: { id: string; created: number; duplicates: number; unmatched: number } };
    assert.deepEqual([result.import.created, result.import.duplicates, result.import.unmatched], [0, 1, 1]);
    assert.match(again.stderr, /\rimporting rows \[#{30}\] 100% 2\/2\n$/, 'a bar redrawn in place on a terminal');
    const [stored] = await context.database.db.select().from(fraudImports).where(eq(fraudImports.id, result.import.id));
    assert.equal(stored?.duplicateCount, 1);

    const live = await cli('fraud', 'import', '--network', 'visa', file);
    assert.match(live.stdout, /\(visa, live\): 2 rows, 0 reports created, 0 duplicates, 2 unmatched/, 'live by default: sandbox payments never match');

    const missing = await cli('fraud', 'import', '--network', 'visa', path.join(workDir, 'missing.csv'));
    assert.equal(missing.code, 1);
    assert.match(missing.stderr, /cannot read .*missing\.csv/);
    const wrongLayout = await cli('fraud', 'import', '--network', 'mastercard', file);
    assert.equal(wrongLayout.code, 1);
    assert.match(wrongLayout.stderr, /unknown column 'transaction_id' for the mastercard layout/);
  });

  test('fraud import --network mastercard imports a SAFE file: reports matched payments with the SAFE fraud type', async () => {
    const merchant = await context.createMerchant();
    const page = await createPage(context, merchant, { amount: 2201 });
    const paid = json<{ data: { paymentId: string } }>(await payPage(context, merchant, page.id, testCards.mastercardCredit)).data;
    const [payment] = await context.database.db.select().from(payments).where(eq(payments.id, paid.paymentId));
    assert.ok(payment?.networkTransactionId, 'the sandbox processor gave the payment a network transaction id');
    const day = context.clock.now().toISOString().slice(0, 10);
    const file = path.join(workDir, 'safe.csv');
    fs.writeFileSync(
      file,
      [
        'banknet_reference,card_bin,card_last4,transaction_date,transaction_amount,transaction_currency,fraud_type_code,fraud_posted_date,fraud_amount,fraud_currency',
        `${payment.networkTransactionId},555555,4444,${day},22.01,USD,06,2031-03-01 10:00:00,,`,
        `,424242,4242,${day},22.01,USD,00,2031-03-02,,`,
      ].join('\n'),
    );

    const imported = await cli('fraud', 'import', '--network', 'mastercard', '--livemode=false', file);
    assert.equal(imported.code, 0, imported.stderr);
    assert.match(imported.stdout, /^Import fim_\w+ \(mastercard, sandbox\): 2 rows, 1 reports created, 0 duplicates, 1 unmatched\n/);
    assert.match(imported.stdout, new RegExp(`  line 2: reported ${paid.paymentId}\n`));
    assert.match(imported.stdout, / {2}line 3: not imported: no matching payment/, 'a Visa card in a Mastercard file matches nothing');
    const report = await context.request({ method: 'GET', url: `/v1/fraud_reports/${paid.paymentId}?livemode=false`, apiKey: merchant.apiKey });
    assert.equal(report.statusCode, 200, report.body);
    const body = json<{ data: { checkoutFraudReport: { network: string; fraudType: string; fraudReason: string; fraudIssueDate: string } } }>(report).data.checkoutFraudReport;
    assert.deepEqual([body.network, body.fraudType, body.fraudReason, body.fraudIssueDate], ['MASTERCARD', '06', 'Card not present fraud', '2031-03-01 10:00:00']);
    const [event] = await queryRows<{ count: number }>(context.database.db, sql`select count(*)::int as count from events where type = 'FRAUD_REPORTED' and data->>'fraudReportId' = ${paid.paymentId}`);
    assert.equal(event?.count, 1);

    const again = JSON.parse((await cli('fraud', 'import', '--network', 'mastercard', '--livemode=false', '--json', file)).stdout) as { import: { created: number; duplicates: number } };
    assert.deepEqual([again.import.created, again.import.duplicates], [0, 1], 'a second import finds the report already there');
  });

  test('crypto reencrypt moves customer PII, e-mails and merchant PII keys to the active key, with progress; generate-key prints a key', async () => {
    const merchant = await context.createMerchant();
    const customer = await createCustomer(context, merchant.apiKey, { referenceId: 'cli-rotation', firstName: 'Ada', email: 'ada@example.com' });
    const emailId = await context.database.transaction((tx) =>
      enqueueEmail(tx, context.clock.now(), context.keyRing, { merchantId: merchant.id, livemode: false, to: 'ada@example.com', template: 'cli_rotation', subject: 'Hello Ada', text: 'Hi Ada', html: '<p>Hi Ada</p>' }),
    );
    const newKey = parseKeySpec(generateKeySpec('new'));
    const rotating = await createTestContext({ keyRing: createKeyRing([...newKey, ...oldKey]), database: context.database });
    try {
      const result = await runInProcess(rotating.platform, ['crypto', 'reencrypt']);
      assert.equal(result.code, 0, result.stderr);
      const counts = /^re-encrypted under new: (\d+) customers, (\d+) e-mails, (?:\d+ [a-z ]+, )+(\d+) merchant PII keys\nevery sealed value is under new\n$/.exec(result.stdout);
      assert.ok(counts && Number(counts[1]) >= 1 && Number(counts[2]) >= 1 && Number(counts[3]) >= 1, result.stdout);
      assert.match(result.stderr, /customers (\d+)\/\1\n(.*\n)*e-mails (\d+)\/\3\n(.*\n)*merchant PII keys (\d+)\/\5\n$/);
      const [email] = await context.database.db.select().from(emails).where(eq(emails.id, emailId));
      assert.ok(email && [email.toCiphertext, email.subject, email.text, email.html].every((value) => value.startsWith('v1.new.')), 'the e-mail is sealed under the new key');
      const [row] = await context.database.db.select().from(customers).where(eq(customers.id, String(customer.id)));
      assert.ok(row && Object.values(row.pii).length > 0);
      for (const value of Object.values(row.pii)) {
        assert.ok(value.startsWith('v1.new.'), 'sealed under the new key');
      }
      const piiKeys = await context.database.db.select().from(merchantPiiKeys).where(and(eq(merchantPiiKeys.merchantId, merchant.id)));
      assert.ok(piiKeys.every((key) => key.keyCiphertext.startsWith('v1.new.')));
      const read = await rotating.request({ method: 'GET', url: `/v1/customers/${String(customer.id)}`, apiKey: merchant.apiKey });
      assert.equal(read.statusCode, 200, 'still readable');
      assert.match((await runInProcess(rotating.platform, ['crypto', 'reencrypt'])).stdout, /^re-encrypted under new: 0 customers, 0 e-mails, (?:0 [a-z ]+, )+0 merchant PII keys\nevery sealed value is under new\n$/, 'nothing left');
    } finally {
      await rotating.close();
    }
    const generated = await cli('crypto', 'generate-key', 'k2026');
    assert.equal(generated.code, 0);
    assert.match(generated.stdout, /^k2026:[A-Za-z0-9+/]{43}=\n$/);
    assert.equal(parseKeySpec(generated.stdout.trim())[0]?.key.length, 32);
  });
});
