import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { json, type TestContext, type TestMerchant } from '../../helpers/context.ts';
import { closeStripeSuite, openStripeSuite, type StripeSuite } from '../../helpers/stripe.ts';
import { createPage } from '../../helpers/payment-pages.ts';
import { startSmtpSink, type SmtpSink } from '../../helpers/smtp.ts';
import { readSubscription, renewalPayments, runUntil } from '../../helpers/subscriptions.ts';
import type { StripeReplica } from '../../providers/stripe/replica.ts';

const secretKey = 'sk_live_replica';

/** Subscription renewals on a card saved through Stripe: charged off-session on the saved PaymentMethod. */
describe('Stripe: off-session renewals (replica)', () => {
  let suite: StripeSuite;
  let replica: StripeReplica;
  let context: TestContext;
  let merchant: TestMerchant;
  let smtp: SmtpSink;

  before(async () => {
    smtp = await startSmtpSink();
    suite = await openStripeSuite({ secretKey, webhookSecret: 'whsec_replica_renewals', env: { SMTP_URL: smtp.url, MAIL_FROM: 'Paysail <no-reply@paysail.test>' }, merchantName: 'Harbour Sailing Club' });
    ({ replica, context, merchant } = suite);
  });
  after(async () => {
    await closeStripeSuite(suite, { ledger: false });
    await smtp.close();
  });

  function mailsTo(address: string) {
    return smtp.received.filter((mail) => (Array.isArray(mail.to) ? mail.to : [mail.to]).some((to) => to?.text === address));
  }

  test('a live subscription page saves the card at Stripe; renewals succeed off-session, and a card that now needs authentication fails like a decline (PAST_DUE)', async () => {
    const page = await createPage(context, merchant, { amount: 1900, subscription: { productId: 'prod_stripe', interval: 'DAY' } }, '?livemode=true');
    const session = await context.platform.services.paymentPages.openCheckoutSession(page.id);
    const [first] = [...replica.intents.values()].filter((state) => state.intent.metadata['paysail_payment_id'] === session.paymentId);
    assert.ok(first);
    assert.equal(first.intent.setup_future_usage, 'off_session', 'the page starts a subscription: the card is saved');
    replica.confirm(first.intent.id, '4242424242424242');
    const paid = await context.platform.services.paymentPages.completeCheckout(page.id);
    assert.equal(paid.status, 'PAID');
    assert.ok(paid.subscriptionId);
    const subscription = await readSubscription(context, merchant, paid.subscriptionId);
    assert.equal(subscription.status, 'ACTIVE');

    await runUntil(context, subscription.currentPeriodEnd + 1000);
    const renewed = await readSubscription(context, merchant, paid.subscriptionId);
    assert.equal(renewed.status, 'ACTIVE');
    assert.ok(renewed.currentPeriodEnd > subscription.currentPeriodEnd);
    const [renewal] = await renewalPayments(context, { pageId: page.id });
    assert.equal(renewal?.status, 'SUCCEEDED');
    const [renewalIntent] = [...replica.intents.values()].filter((state) => state.intent.metadata['paysail_payment_id'] === renewal?.id);
    assert.equal(renewalIntent?.intent.status, 'succeeded');
    assert.equal(renewalIntent?.intent.customer, first.intent.customer, 'charged on the saved customer and PaymentMethod');
    assert.equal(renewalIntent?.intent.payment_method, replica.expanded(first.intent.id).payment_method);

    // The issuer now asks for authentication on this card: off-session, that is a failed renewal.
    replica.requireAuthentication(String(replica.expanded(first.intent.id).payment_method));
    await runUntil(context, renewed.currentPeriodEnd + 1000);
    const pastDue = await readSubscription(context, merchant, paid.subscriptionId);
    assert.equal(pastDue.status, 'PAST_DUE');
    assert.equal(pastDue.lastDeclineReason, 'authentication_required');
    const payments = await renewalPayments(context, { pageId: page.id });
    assert.deepEqual(payments.map((payment) => [payment.status, payment.declineReason]), [['SUCCEEDED', null], ['DECLINED', 'authentication_required']]);

    // The customer gets a page to pay this renewal on-session (3-D Secure); no off-session retries meanwhile.
    assert.match(String(pastDue.renewalPaymentPageId), /^page_/);
    assert.equal(pastDue.renewalPaymentUrl, `http://paysail.test/payment-page/${pastDue.renewalPaymentPageId}`);
    assert.equal(pastDue.nextRenewalAttemptAt, undefined);
    const renewalPageId = String(pastDue.renewalPaymentPageId);
    const renewalPage = await context.request({ method: 'GET', url: `/v1/payment_pages/${renewalPageId}?livemode=true`, apiKey: merchant.apiKey });
    assert.equal(renewalPage.statusCode, 200, renewalPage.body);
    const renewalPageBody = JSON.parse(renewalPage.body) as { data: { amount: number; status: string; livemode: boolean; clientReferenceId: string } };
    assert.equal(renewalPageBody.data.amount, 1900);
    assert.equal(renewalPageBody.data.status, 'CREATED');
    assert.equal(renewalPageBody.data.livemode, true);
    await runUntil(context, pastDue.currentPeriodEnd + 2 * 24 * 60 * 60 * 1000);
    assert.equal((await renewalPayments(context, { pageId: page.id })).length, 2, 'no off-session retry while the customer is asked to authenticate');
    assert.equal((await readSubscription(context, merchant, paid.subscriptionId)).status, 'PAST_DUE');

    // The customer pays on the page, passing a 3-D Secure challenge; the card is saved again.
    const recovery = await context.platform.services.paymentPages.openCheckoutSession(renewalPageId);
    const [recoveryIntent] = [...replica.intents.values()].filter((state) => state.intent.metadata['paysail_payment_id'] === recovery.paymentId);
    assert.ok(recoveryIntent);
    assert.equal(recoveryIntent.intent.setup_future_usage, 'off_session');
    replica.confirm(recoveryIntent.intent.id, '4000002500003155', { passChallenge: true });
    assert.equal((await context.platform.services.paymentPages.completeCheckout(renewalPageId)).status, 'PAID');
    const recovered = await readSubscription(context, merchant, paid.subscriptionId);
    assert.equal(recovered.status, 'ACTIVE');
    assert.ok(recovered.currentPeriodEnd > pastDue.currentPeriodEnd, 'a new period is paid');
    assert.ok(recovered.currentPeriodStart <= context.clock.now().getTime() && context.clock.now().getTime() < recovered.currentPeriodEnd);
    assert.equal(recovered.failedRenewalAttempts, 0);
    assert.equal(recovered.renewalPaymentPageId, undefined);
    assert.equal(recovered.latestInvoice?.paymentId, recovery.paymentId);

    // The next renewal is charged off-session on the card saved on the renewal page.
    await runUntil(context, recovered.currentPeriodEnd + 1000);
    const next = await readSubscription(context, merchant, paid.subscriptionId);
    assert.equal(next.status, 'ACTIVE');
    const [, , latest] = await renewalPayments(context, { pageId: page.id });
    const [latestIntent] = [...replica.intents.values()].filter((state) => state.intent.metadata['paysail_payment_id'] === latest?.id);
    assert.equal(latestIntent?.intent.status, 'succeeded');
    assert.equal(latestIntent?.intent.payment_method, replica.expanded(recoveryIntent.intent.id).payment_method);
  });

  test('a renewal page that expires unpaid ends the subscription (CANCELED); its open session is closed at Stripe', async () => {
    const page = await createPage(context, merchant, { amount: 700, subscription: { productId: 'prod_stripe_lapse', interval: 'DAY' } }, '?livemode=true');
    const session = await context.platform.services.paymentPages.openCheckoutSession(page.id);
    const [first] = [...replica.intents.values()].filter((state) => state.intent.metadata['paysail_payment_id'] === session.paymentId);
    assert.ok(first);
    replica.confirm(first.intent.id, '4242424242424242');
    const paid = await context.platform.services.paymentPages.completeCheckout(page.id);
    assert.ok(paid.subscriptionId);
    replica.requireAuthentication(String(replica.expanded(first.intent.id).payment_method));
    const subscription = await readSubscription(context, merchant, paid.subscriptionId);
    await runUntil(context, subscription.currentPeriodEnd + 1000);
    const pastDue = await readSubscription(context, merchant, paid.subscriptionId);
    assert.equal(pastDue.status, 'PAST_DUE');
    const renewalPageId = String(pastDue.renewalPaymentPageId);
    // The customer opens the page but walks away.
    const abandoned = await context.platform.services.paymentPages.openCheckoutSession(renewalPageId);
    await runUntil(context, pastDue.currentPeriodEnd + 6 * 24 * 60 * 60 * 1000);
    // The subscription looks at its page again a little later (the page's expiry may run after it).
    await runUntil(context, pastDue.currentPeriodEnd + 6 * 24 * 60 * 60 * 1000 + 20 * 60 * 1000);
    const ended = await readSubscription(context, merchant, paid.subscriptionId);
    assert.equal(ended.status, 'CANCELED');
    assert.equal(ended.lastDeclineReason, 'authentication_required');
    const [abandonedIntent] = [...replica.intents.values()].filter((state) => state.intent.metadata['paysail_payment_id'] === abandoned.paymentId);
    assert.equal(abandonedIntent?.intent.status, 'canceled', 'the open session was canceled when the page expired');
    const expiredPage = JSON.parse((await context.request({ method: 'GET', url: `/v1/payment_pages/${renewalPageId}?livemode=true`, apiKey: merchant.apiKey })).body) as { data: { status: string } };
    assert.equal(expiredPage.data.status, 'EXPIRED');
  });

  test('a renewal needing authentication e-mails the customer the renewal page link once, with no PII beyond the first name', async () => {
    const referenceId = `user-renewal-mail-${Date.now()}`;
    const address = 'grace.renewal@example.com';
    const customer = await context.request({
      method: 'POST',
      url: '/v1/customers?livemode=true',
      apiKey: merchant.apiKey,
      body: { referenceId, signupAt: context.clock.now().getTime(), email: address, firstName: 'Grace', lastName: 'Hopperstein', phoneNumber: '+14155550123', address: { line1: '12 Acacia Avenue', city: 'Arlington', state: 'VA', postalCode: '22201', country: 'US' } },
    });
    assert.equal(customer.statusCode, 200, customer.body);
    const page = await createPage(context, merchant, { amount: 2350, currency: 'EUR', customer: { referenceId, email: address }, subscription: { productId: 'prod_stripe_mail', interval: 'DAY' } }, '?livemode=true');
    const session = await context.platform.services.paymentPages.openCheckoutSession(page.id);
    const [first] = [...replica.intents.values()].filter((state) => state.intent.metadata['paysail_payment_id'] === session.paymentId);
    assert.ok(first);
    replica.confirm(first.intent.id, '4242424242424242');
    const paid = await context.platform.services.paymentPages.completeCheckout(page.id);
    assert.ok(paid.subscriptionId);
    await context.drainJobs();
    const [receipt, ...others] = mailsTo(address);
    assert.match(receipt?.subject ?? '', /^Your receipt from /, 'the first payment is receipted');
    assert.equal(others.length, 0, 'nothing else is sent while renewals are charged off-session');

    replica.requireAuthentication(String(replica.expanded(first.intent.id).payment_method));
    const subscription = await readSubscription(context, merchant, paid.subscriptionId);
    await runUntil(context, subscription.currentPeriodEnd + 1000);
    const pastDue = await readSubscription(context, merchant, paid.subscriptionId);
    assert.equal(pastDue.status, 'PAST_DUE');
    const url = String(pastDue.renewalPaymentUrl);
    assert.equal(url, `http://paysail.test/payment-page/${pastDue.renewalPaymentPageId}`);

    const [mail, ...more] = mailsTo(address).slice(1); // after the receipt
    assert.ok(mail, 'the customer is e-mailed');
    assert.equal(more.length, 0);
    assert.equal(mail.subject, 'Confirm your subscription payment to Harbour Sailing Club');
    const text = mail.text ?? '';
    assert.match(text, /Hello Grace,/);
    assert.match(text, /renewal of your subscription with Harbour Sailing Club \(23\.50 EUR\)/);
    assert.ok(text.includes(`Pay your renewal: ${url}`), 'the text part carries the link');
    const html = typeof mail.html === 'string' ? mail.html : '';
    assert.ok(html.includes(`href="${url}"`), 'the HTML part links the page');
    const everything = `${mail.subject}\n${text}\n${html}`;
    for (const pii of ['Hopperstein', address, '+14155550123', '4155550123', 'Acacia', 'Arlington', '22201', referenceId, '4242']) {
      assert.ok(!everything.includes(pii), `${pii} is not in the e-mail`);
    }
    const stored = json<{ data: { emails: Array<{ template: string; relatedId: string | null; status: string }> } }>(await context.admin('GET', `/admin/v1/emails?relatedId=${pastDue.renewalPaymentPageId}`)).data.emails;
    assert.deepEqual(
      stored.map((email) => [email.template, email.status]),
      [['subscription_renewal_page', 'sent']],
    );

    // The subscription looks at its open page again later: no second e-mail.
    await runUntil(context, pastDue.currentPeriodEnd + 2 * 24 * 60 * 60 * 1000);
    assert.equal((await readSubscription(context, merchant, paid.subscriptionId)).status, 'PAST_DUE');
    assert.equal(mailsTo(address).length, 2, 'the receipt and the one renewal e-mail');
  });
});
