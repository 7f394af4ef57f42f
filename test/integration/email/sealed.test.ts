import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { eq, sql } from 'drizzle-orm';
import { queryRows } from '../../../src/db/client.ts';
import { emails } from '../../../src/db/schema/index.ts';
import { createKeyRing, generateKeySpec, parseKeySpec } from '../../../src/crypto/keyring.ts';
import { enqueueEmail } from '../../../src/modules/email/enqueue.ts';
import { openEmailField, unreadableEmailField } from '../../../src/modules/email/sealing.ts';
import { renderEmail } from '../../../src/modules/email/templates.ts';
import { createTestContext, json, type TestContext, type TestMerchant } from '../../helpers/context.ts';
import { signedInClient, textOf, type DashboardClient } from '../../http/dashboard/client.ts';
import { startSmtpSink as startSmtp } from '../../helpers/smtp.ts';

/**
 * E-mail subjects and bodies rest sealed with the key ring, like the recipient: a customer's first
 * name (the greeting) and a payout page's verification code are in the e-mail as delivered (SMTP, the
 * inbox API, the dashboard inbox), never in the `emails` table in plaintext. A sealed value is bound
 * to its e-mail row, merchant and field; rows of older versions (plaintext) read as they are until
 * `crypto reencrypt` seals them; rotation re-seals every e-mail under the active key.
 */

interface AdminEmail {
  id: string;
  to: string;
  subject: string;
  text: string;
  html: string;
  status: string;
  lastError: string | null;
}

interface StoredRow {
  id: string;
  to_ciphertext: string;
  subject: string;
  text: string;
  html: string;
  row: string;
}

const oldKey = parseKeySpec(generateKeySpec('old'));
const newKey = parseKeySpec(generateKeySpec('new'));

describe('e-mail subjects and bodies are sealed at rest', () => {
  let smtp: Awaited<ReturnType<typeof startSmtp>>;
  let context: TestContext;
  let merchant: TestMerchant;
  let other: TestMerchant;
  let dashboard: DashboardClient;

  before(async () => {
    smtp = await startSmtp();
    context = await createTestContext({ keyRing: createKeyRing(oldKey), env: { SMTP_URL: smtp.url } });
    merchant = await context.createMerchant();
    other = await context.createMerchant();
    dashboard = await signedInClient(context, merchant);
  });
  after(async () => {
    await context.close();
    await smtp.close();
  });

  async function queue(owner: TestMerchant, name: string, code: string, relatedId: string): Promise<string> {
    const content = renderEmail({ subject: `Your code, ${name}`, paragraphs: [`Hello ${name},`, `Your code is ${code}.`] });
    return context.database.transaction((tx) =>
      enqueueEmail(tx, context.clock.now(), context.keyRing, { merchantId: owner.id, livemode: false, to: `${name.toLowerCase()}@example.com`, template: 'payout_page_verification_code', relatedId, ...content }),
    );
  }

  async function stored(id: string): Promise<StoredRow> {
    const [row] = await queryRows<StoredRow>(context.database.db, sql`select id, to_ciphertext, subject, text, html, e::text as row from emails e where id = ${id}`);
    assert.ok(row, `e-mail ${id} is stored`);
    return row;
  }

  async function adminEmail(id: string, owner: TestMerchant): Promise<AdminEmail> {
    const response = await context.admin('GET', `/admin/v1/emails?merchantId=${owner.id}&limit=100`);
    assert.equal(response.statusCode, 200, response.body);
    const found = json<{ data: { emails: AdminEmail[] } }>(response).data.emails.find((email) => email.id === id);
    assert.ok(found, `the inbox API lists ${id}`);
    return found;
  }

  test('the row holds ciphertexts only; SMTP, the inbox API and the dashboard show the e-mail', async () => {
    const id = await queue(merchant, 'Quintessaly', '482913', 'sealed-1');
    const row = await stored(id);
    for (const value of [row.to_ciphertext, row.subject, row.text, row.html]) {
      assert.match(value, /^v1\.old\.[A-Za-z0-9_-]+$/);
    }
    assert.doesNotMatch(row.row, /quintessaly|482913/i, 'neither the first name nor the code rests in plaintext');

    await context.drainJobs();
    const mail = smtp.received.find((received) => received.headers.get('x-paysail-email-id') === id);
    assert.ok(mail, 'delivered through SMTP');
    assert.equal(mail.subject, 'Your code, Quintessaly');
    assert.match(mail.text ?? '', /Hello Quintessaly,\n\nYour code is 482913\./);
    assert.match(typeof mail.html === 'string' ? mail.html : '', /Hello Quintessaly,/);

    const listed = await adminEmail(id, merchant);
    assert.deepEqual([listed.status, listed.to, listed.subject], ['sent', 'quintessaly@example.com', 'Your code, Quintessaly']);
    assert.match(listed.text, /Your code is 482913\./);
    assert.match(listed.html, /^<!doctype html>[\s\S]*Hello Quintessaly,/);

    const inbox = await dashboard.get('/dashboard/sandbox/inbox');
    assert.equal(inbox.statusCode, 200);
    assert.match(textOf(inbox.body), /Your code, Quintessaly[\s\S]*482913/, 'the inbox lists the subject and the code');
    const message = await dashboard.get(`/dashboard/sandbox/inbox/${id}`);
    assert.equal(message.statusCode, 200);
    assert.match(textOf(message.body), /Hello Quintessaly,\s+Your code is 482913\./);
  });

  test('a sealed subject or body copied to another e-mail (or merchant) does not open: not sent, shown as unreadable', async () => {
    const source = await queue(merchant, 'Alphonsine', '111222', 'copy-source');
    const target = await queue(merchant, 'Bertrand', '333444', 'copy-target');
    const foreign = await queue(other, 'Cordelia', '555666', 'copy-foreign');
    const copied = await stored(source);
    assert.throws(() => openEmailField(context.keyRing, merchant.id, target, 'text', copied.text), 'bound to its row');
    assert.throws(() => openEmailField(context.keyRing, merchant.id, source, 'subject', copied.text), 'bound to its field');
    assert.throws(() => openEmailField(context.keyRing, other.id, source, 'text', copied.text), 'bound to its merchant');
    await context.database.db.update(emails).set({ subject: copied.subject, text: copied.text }).where(eq(emails.id, target));
    await context.database.db.update(emails).set({ html: copied.html }).where(eq(emails.id, foreign));

    await context.drainJobs();
    const sentIds = smtp.received.map((mail) => mail.headers.get('x-paysail-email-id'));
    assert.ok(sentIds.includes(source), 'the source e-mail is sent');
    assert.ok(!sentIds.includes(target) && !sentIds.includes(foreign), 'the e-mails holding copied values are not sent');
    assert.equal(smtp.received.filter((mail) => (mail.text ?? '').includes('Alphonsine')).length, 1, 'the copied content reached nobody else');

    const failed = await adminEmail(target, merchant);
    assert.equal(failed.status, 'failed');
    assert.match(failed.lastError ?? '', /does not open/);
    assert.deepEqual([failed.subject, failed.text], [unreadableEmailField, unreadableEmailField]);
    assert.match(failed.html, /Hello Bertrand,/, 'its own html still opens');
    assert.equal((await adminEmail(foreign, other)).html, unreadableEmailField);
    assert.match((await adminEmail(source, merchant)).text, /Hello Alphonsine,/, 'the source still opens');

    const message = await dashboard.get(`/dashboard/sandbox/inbox/${target}`);
    assert.equal(message.statusCode, 200);
    assert.doesNotMatch(message.body, /Alphonsine|111222/);
    assert.match(textOf(message.body), /\(unreadable\)/);
  });

  test('rows written before sealing read as they are; rotation re-seals every e-mail (plaintext ones too) under the new key', async () => {
    // An e-mail as an older version stored it: recipient sealed, subject and bodies in plaintext.
    const legacy = await queue(merchant, 'Leopoldina', '777888', 'legacy');
    await context.database.db.update(emails).set({ subject: 'Your code, Leopoldina', text: 'Hello Leopoldina, your code is 777888.', html: '<p>Hello Leopoldina, your code is 777888.</p>' }).where(eq(emails.id, legacy));
    await context.drainJobs();
    const mail = smtp.received.find((received) => received.headers.get('x-paysail-email-id') === legacy);
    assert.equal(mail?.subject, 'Your code, Leopoldina', 'a plaintext row is sent as it is');
    assert.equal((await adminEmail(legacy, merchant)).text, 'Hello Leopoldina, your code is 777888.');

    const unreadable = (await queryRows<{ id: string }>(context.database.db, sql`select id from emails where related_id in ('copy-target', 'copy-foreign')`)).map((row) => row.id);
    const total = (await queryRows<{ count: number }>(context.database.db, sql`select count(*)::int as count from emails`))[0]?.count ?? 0;
    assert.ok(total >= 5);
    const rotating = await createTestContext({ keyRing: createKeyRing([...newKey, ...oldKey]), database: context.database });
    try {
      const progress: Array<[number, number]> = [];
      const resealed = await rotating.platform.services.email.reencryptAll({ batchSize: 2, onProgress: (done, all) => progress.push([done, all]) });
      assert.equal(resealed, total - unreadable.length, 'every e-mail that opens is re-sealed (read in pages of 2)');
      assert.deepEqual(progress.at(-1), [total, total]);
      assert.equal(await rotating.platform.services.email.reencryptAll(), 0, 'a second run has nothing left to do');
    } finally {
      await rotating.close();
    }
    const rows = await queryRows<StoredRow>(context.database.db, sql`select id, to_ciphertext, subject, text, html, e::text as row from emails e`);
    for (const row of rows.filter((candidate) => !unreadable.includes(candidate.id))) {
      for (const value of [row.to_ciphertext, row.subject, row.text, row.html]) {
        assert.match(value, /^v1\.new\./, `e-mail ${row.id} is sealed under the new key`);
      }
      assert.doesNotMatch(row.row, /leopoldina|777888/i);
    }

    // The old key is gone: every re-sealed e-mail still reads.
    const afterRotation = await createTestContext({ keyRing: createKeyRing(newKey), database: context.database });
    try {
      const response = await afterRotation.admin('GET', `/admin/v1/emails?merchantId=${merchant.id}&relatedId=legacy`);
      const [read] = json<{ data: { emails: AdminEmail[] } }>(response).data.emails;
      assert.deepEqual([read?.to, read?.subject, read?.text], ['leopoldina@example.com', 'Your code, Leopoldina', 'Hello Leopoldina, your code is 777888.']);
      const [first] = await afterRotation.platform.services.email.listEmails({ relatedId: 'sealed-1', limit: 1 });
      assert.equal(first?.subject, 'Your code, Quintessaly');
    } finally {
      await afterRotation.close();
    }
  });
});
