import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { and, eq, sql } from 'drizzle-orm';
import { createKeyRing, generateKeySpec, parseKeySpec } from '../../src/crypto/keyring.ts';
import { queryRows } from '../../src/db/client.ts';
import { customers, emails, fraudImports, ledgerAccounts, merchantPiiKeys, payments } from '../../src/db/schema/index.ts';
import { enqueueEmail } from '../../src/modules/email/enqueue.ts';
import { createCustomer } from '../helpers/assertions.ts';
import { createTestContext, json, type TestContext } from '../helpers/context.ts';
import { createPage, payPage, testCards } from '../helpers/payment-pages.ts';
import { runInProcess } from './helpers.ts';

/**
 * The CLI commands that move money or data — balance credit, fraud import, crypto reencrypt — run
 * in this process through the same `runCli` as `bin/paysail.mjs`, on the test context's real
 * platform and database (PGlite or PostgreSQL). The other commands are in commands.test.ts.
 */
describe('paysail CLI commands that move money or data (in process, real platform)', () => {
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
