import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { enqueueEmail } from '../../../src/modules/email/enqueue.ts';
import { renderEmail } from '../../../src/modules/email/templates.ts';
import { createTestContext, type TestContext, type TestMerchant } from '../../helpers/context.ts';
import { adminEmails } from '../../helpers/emails.ts';
import { startSmtpSink as startSmtp } from '../../helpers/smtp.ts';

async function queue(context: TestContext, merchant: TestMerchant, to: string, name: string, relatedId: string): Promise<string> {
  const content = renderEmail({
    subject: `Your payout is on its way, ${name}`,
    paragraphs: [`Hello ${name},`, 'Your payout of 12.00 USDC is being sent.'],
    action: { label: 'View payout', url: 'https://paysail.test/payout-page/payout_page_1?x=1&y=2' },
  });
  return context.database.transaction((tx) => enqueueEmail(tx, context.clock.now(), context.keyRing, { merchantId: merchant.id, livemode: false, to, template: 'payout_processing', relatedId, ...content }));
}

describe('email.send with SMTP (smtp-server + mailparser)', () => {
  let smtp: Awaited<ReturnType<typeof startSmtp>>;
  let context: TestContext;
  let merchant: TestMerchant;

  before(async () => {
    smtp = await startSmtp();
    context = await createTestContext({ env: { SMTP_URL: smtp.url, MAIL_FROM: 'Paysail <no-reply@paysail.test>' } });
    merchant = await context.createMerchant();
  });
  after(async () => {
    await context.close();
    await smtp.close();
  });

  test('sends a text and an HTML part through the pooled transport; status sent', async () => {
    const id = await queue(context, merchant, 'ada@example.com', 'Ada <Lovelace> & Co', 'payout_page_1');
    await context.drainJobs();
    assert.equal(smtp.received.length, 1);
    const [mail] = smtp.received;
    assert.ok(mail);
    assert.equal(mail.subject, 'Your payout is on its way, Ada <Lovelace> & Co');
    assert.equal(mail.from?.text, '"Paysail" <no-reply@paysail.test>');
    assert.equal(Array.isArray(mail.to) ? mail.to[0]?.text : mail.to?.text, 'ada@example.com');
    assert.equal(mail.messageId, `<${id}@paysail.test>`);
    assert.equal(mail.headers.get('x-paysail-email-id'), id);
    assert.match(mail.text ?? '', /Hello Ada <Lovelace> & Co,\n\nYour payout of 12\.00 USDC is being sent\./);
    assert.match(mail.text ?? '', /View payout: https:\/\/paysail\.test\/payout-page\/payout_page_1\?x=1&y=2/);
    const html = typeof mail.html === 'string' ? mail.html : '';
    assert.ok(html.includes('Hello Ada &lt;Lovelace&gt; &amp; Co,'), 'the name is escaped in the HTML part');
    assert.ok(html.includes('href="https://paysail.test/payout-page/payout_page_1?x=1&amp;y=2"'));

    const [stored] = await adminEmails(context, `relatedId=payout_page_1`);
    assert.equal(stored?.id, id);
    assert.equal(stored?.status, 'sent');
    assert.equal(stored?.to, 'ada@example.com');
    assert.equal(stored?.attempts, 1);
  });

  test('many e-mails share a few pooled connections', async () => {
    const before = smtp.connections();
    for (let index = 0; index < 12; index += 1) {
      await queue(context, merchant, `user${index}@example.com`, `User ${index}`, `batch-${index}`);
    }
    await context.drainJobs();
    assert.equal(smtp.received.length, 13);
    assert.ok(smtp.connections() - before <= 5, `opened ${smtp.connections() - before} connections for 12 e-mails`);
  });
});

describe('email.send when SMTP keeps failing', () => {
  let smtp: Awaited<ReturnType<typeof startSmtp>>;
  let context: TestContext;
  let merchant: TestMerchant;

  before(async () => {
    smtp = await startSmtp({ rejectRecipients: true });
    context = await createTestContext({ env: { SMTP_URL: smtp.url } });
    merchant = await context.createMerchant();
  });
  after(async () => {
    await context.close();
    await smtp.close();
  });

  test('retries with backoff, then marks the e-mail failed after 8 attempts', async () => {
    const id = await queue(context, merchant, 'grace@example.com', 'Grace', 'failing-1');
    await context.drainJobs();
    let [email] = await adminEmails(context, 'relatedId=failing-1');
    assert.equal(email?.status, 'queued');
    assert.equal(email?.attempts, 1);
    assert.match(email?.lastError ?? '', /451|mailbox temporarily unavailable/);
    for (let round = 0; round < 10; round += 1) {
      context.clock.advance(2 * 3_600_000);
      await context.drainJobs();
    }
    [email] = await adminEmails(context, 'relatedId=failing-1');
    assert.equal(email?.id, id);
    assert.equal(email?.status, 'failed');
    assert.equal(email?.attempts, 8);
    assert.equal(smtp.received.length, 0);
  });
});

describe('email.send without SMTP: the sandbox inbox', () => {
  let context: TestContext;

  before(async () => {
    context = await createTestContext();
  });
  after(async () => context.close());

  test('e-mails are stored, listed per merchant and related id, with the recipient decrypted', async () => {
    const first = await context.createMerchant();
    const second = await context.createMerchant();
    const kept = await queue(context, first, 'lin@example.com', 'Lin', 'page-a');
    await queue(context, second, 'max@example.com', 'Max', 'page-b');
    await context.drainJobs();
    const mine = await adminEmails(context, `merchantId=${first.id}`);
    assert.deepEqual(
      mine.map((email) => [email.id, email.status, email.to, email.template]),
      [[kept, 'stored', 'lin@example.com', 'payout_processing']],
    );
    assert.match(mine[0]?.html ?? '', /^<!doctype html>/);
    assert.equal((await adminEmails(context, 'relatedId=page-b'))[0]?.to, 'max@example.com');
    assert.equal((await context.app.inject({ method: 'GET', url: '/admin/v1/emails' })).statusCode, 401);
  });
});
