import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { eq } from 'drizzle-orm';
import { cliPayoutMethods } from '../../src/cli/customers.ts';
import { commands } from '../../src/cli/program.ts';
import { apiKeys, merchants } from '../../src/db/schema/index.ts';
import { payoutMethods } from '../../src/modules/customers/rules.ts';
import { createCustomer } from '../helpers/assertions.ts';
import { createTestContext, json, type TestContext, type TestMerchant } from '../helpers/context.ts';
import { runInProcess } from './helpers.ts';

/**
 * Every command's logic, run in this process through the same `runCli` as `bin/paysail.mjs`, on the
 * test context's real platform and database (PGlite or PostgreSQL). The binary itself (spawning,
 * exit codes of the process, serve/worker/migrate/rotate-key) is covered by process.test.ts,
 * `listen` by listen.test.ts, and the commands that move money or data (balance credit, fraud
 * import, crypto reencrypt) by data-commands.test.ts.
 */
describe('paysail CLI commands (in process, real platform)', () => {
  let context: TestContext;

  before(async () => {
    context = await createTestContext();
  });
  after(() => context.close());

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
});
