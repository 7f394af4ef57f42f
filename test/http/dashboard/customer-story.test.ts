import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { createTestContext, type TestContext, type TestMerchant } from '../../helpers/context.ts';
import { createRefund } from '../../helpers/refunds.ts';
import { signedInClient, textOf } from './client.ts';
import { createCustomer, createPaymentPage, createPayoutPage, identity, payPaymentPage } from './fixtures.ts';

/**
 * A customer's whole story on their dashboard screen: their payout pages, payments, subscriptions
 * and refunds (newest first, linked), beside the KYC history; and the customer list shows each
 * customer's name and e-mail (decrypted for display only), never another merchant's or mode's rows.
 */
describe('dashboard: a customer screen tells the whole story; the list shows names and e-mails and finds by exact e-mail, id or reference', () => {
  let context: TestContext;
  let merchant: TestMerchant;
  let other: TestMerchant;

  before(async () => {
    context = await createTestContext();
    merchant = await context.createMerchant();
    other = await context.createMerchant();
  });
  after(async () => context.close());

  test('payout pages, payments, subscriptions and refunds of the customer, each linked; nothing of other customers', async () => {
    const customer = await createCustomer(context, merchant, { email: 'grace@example.com', ...identity, firstName: 'Grace', lastName: 'Hopper' });
    const asCustomer = { customer: { referenceId: customer.referenceId, email: 'grace@example.com' } };
    const payout = await createPayoutPage(context, merchant, { ...asCustomer, clientReferenceId: 'story-payout-1' });
    const paid = await createPaymentPage(context, merchant, { ...asCustomer, clientReferenceId: 'story-order-1', amount: 4_000 });
    await payPaymentPage(context, merchant, paid.id);
    const subscribed = await createPaymentPage(context, merchant, { ...asCustomer, clientReferenceId: 'story-plan-1', subscription: { productId: 'story-pro', interval: 'MONTH', intervalCount: 1 } });
    const subscription = await payPaymentPage(context, merchant, subscribed.id);
    const refund = await createRefund(context, merchant, { paymentPageId: paid.id, amount: 1_500 });
    // Someone else's page, with the same merchant: never on this screen.
    await createPaymentPage(context, merchant, { clientReferenceId: 'story-someone-else' });

    const client = await signedInClient(context, merchant);
    const screen = await client.get(`/dashboard/sandbox/customers/${customer.id}`);
    assert.equal(screen.statusCode, 200);
    const text = textOf(screen.body).replace(/\s+/g, ' ');
    assert.match(text, /Payouts \(1\) Export CSV Client reference Amount Status Created story-payout-1 123\.45 USDC Open Waiting for the customer/);
    // Both pages are made in the same millisecond of the test clock, so their order is the ids' (random within it).
    assert.match(text, /Payments \(2\) Export CSV Client reference Amount Status Created story-(plan|order)-1/);
    assert.match(text, /story-order-1 40\.00 USD Paid/);
    assert.match(text, /story-plan-1 25\.00 USD Paid/);
    assert.match(text, /Subscriptions \(1\) Export CSV Product Amount Status Started story-pro 25\.00 USD Active/);
    assert.match(text, new RegExp(`Refunds \\(1\\) Export CSV Refund Amount Status Made ${refund.id} 15\\.00 USD Pending`));
    assert.doesNotMatch(text, /story-someone-else/);
    for (const href of [`/dashboard/sandbox/payout-pages/${payout.id}`, `/dashboard/sandbox/payment-pages/${paid.id}`, `/dashboard/sandbox/subscriptions/${String(subscription.subscriptionId)}`]) {
      assert.ok(screen.body.includes(`href="${href}"`), href);
    }

    const list = textOf((await client.get(`/dashboard/sandbox/customers?reference=${encodeURIComponent(customer.referenceId)}`)).body).replace(/\s+/g, ' ');
    assert.match(list, new RegExp(`Reference ID Name E-mail KYC status Created ID ${customer.referenceId} Grace Hopper grace@example\\.com`));

    // Find by exact e-mail (through the keyed hash), by customer id, by reference prefix.
    const byEmail = textOf((await client.get('/dashboard/sandbox/customers?email=grace%40example.com')).body);
    assert.ok(byEmail.includes(customer.referenceId));
    assert.doesNotMatch(byEmail, /payee@example\.com|buyer@example\.com/, 'only that customer');
    assert.match(textOf((await client.get('/dashboard/sandbox/customers?email=grace%40example.co')).body), /No customer matches these filters/, 'exact, not a prefix');
    assert.match(textOf((await client.get('/dashboard/sandbox/customers?email=not-an-address')).body), /No customer matches these filters/);
    const byId = textOf((await client.get(`/dashboard/sandbox/customers?reference=${customer.id}`)).body);
    assert.ok(byId.includes(customer.referenceId));

    const foreign = await signedInClient(context, other);
    assert.equal((await foreign.get(`/dashboard/sandbox/customers/${customer.id}`)).statusCode, 404);
    assert.doesNotMatch(textOf((await foreign.get('/dashboard/sandbox/customers')).body), /Grace Hopper|grace@example\.com/);
    assert.match(textOf((await foreign.get('/dashboard/sandbox/customers?email=grace%40example.com')).body), /No customer matches these filters/, "another merchant's customer is never found");
  });
});
