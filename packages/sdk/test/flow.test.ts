import assert from 'node:assert/strict';
import type { AddressInfo } from 'node:net';
import { randomUUID } from 'node:crypto';
import { after, before, test } from 'node:test';
import {
  collect,
  Paysail,
  PaysailAuthenticationError,
  PaysailCardError,
  PaysailConflictError,
  PaysailInvalidRequestError,
  PaysailNotFoundError,
  PaysailPermissionError,
  type Body,
  type PayoutPage,
} from '@paysail/sdk';
import { createTestContext, json, type TestContext, type TestMerchant } from '../../../test/helpers/context.ts';
import { WebhookReceiver } from '../../../test/helpers/webhook-receiver.ts';
import { assertSdkMatchesServedDocument } from './served-document.ts';

/**
 * The SDK against the real app listening on loopback (real HTTP, real database, the test clock for
 * KYC and payout-rail delays). Nothing is faked but the sandbox providers the app ships with.
 */
let context: TestContext;
let baseUrl: string;
let receiver: WebhookReceiver;

before(async () => {
  context = await createTestContext();
  await context.app.listen({ port: 0, host: '127.0.0.1' });
  baseUrl = `http://127.0.0.1:${(context.app.server.address() as AddressInfo).port}`;
  receiver = await WebhookReceiver.start();
});

after(async () => {
  await receiver.close();
  await context.close();
});

async function sandboxClient(): Promise<{ paysail: Paysail; merchant: TestMerchant }> {
  const merchant = await context.createMerchant();
  return { paysail: new Paysail({ apiKey: merchant.apiKey, baseUrl, livemode: false }), merchant };
}

let shared: Promise<{ paysail: Paysail; merchant: TestMerchant }> | undefined;

/** One merchant for the tests that only look at their own resources (creating merchants is the slow part). */
function sharedClient(): Promise<{ paysail: Paysail; merchant: TestMerchant }> {
  shared ??= sandboxClient();
  return shared;
}

const kyc = {
  firstName: 'Ada',
  lastName: 'Lovelace',
  dateOfBirth: '1990-12-10',
  phoneNumber: '(415) 555-0123',
  address: { line1: '1 Market St', city: 'San Francisco', state: 'CA', postalCode: '94105', country: 'US' },
};

function card(cardNumber: string): Body<'POST /v1/test_helpers/payment_pages/{pageId}/pay'> {
  return { cardNumber, expMonth: 12, expYear: context.clock.now().getUTCFullYear() + 3, cvc: '737', cardholderName: 'Ada Lovelace' };
}

function paymentPageBody(overrides: Partial<Body<'POST /v1/payment_pages'>> = {}): Body<'POST /v1/payment_pages'> {
  return { amount: 2500, currency: 'USD', clientReferenceId: randomUUID(), customer: { referenceId: `buyer-${randomUUID()}`, email: 'buyer@example.com' }, ...overrides };
}

/** Runs due jobs, then moves the clock past the sandbox delays, until the page settles (bounded). */
async function settle(paysail: Paysail, payoutPageId: string): Promise<PayoutPage> {
  let page = await paysail.payoutPages.retrieve(payoutPageId);
  for (let round = 0; round < 6 && !['PROCESSED', 'FAILED'].includes(page.status); round += 1) {
    await context.drainJobs();
    context.clock.advance(2_000);
    await context.drainJobs();
    page = await paysail.payoutPages.retrieve(payoutPageId);
  }
  return page;
}

// Here rather than in drift.test.ts so the suite boots one app fewer: this server is the live app.
test('the committed openapi.json and src/generated/ are what this server serves, through openapi-typescript (the SDK cannot drift from the app)', async () => {
  await assertSdkMatchesServedDocument(baseUrl);
});

test('full flow: customer → payout page → confirm via helper → PROCESSED; payment page → pay → fraud report; signed webhooks', async () => {
  const { paysail, merchant } = await sandboxClient();
  const endpoint = await paysail.webhookEndpoints.create({ url: `http://${receiver.host}:${receiver.port}/paysail` });
  assert.match(endpoint.secret, /^whsec_/);

  const referenceId = `user-${randomUUID()}`;
  const customer = await paysail.customers.create({ referenceId, signupAt: context.clock.now().getTime(), email: 'ada@example.com', ...kyc });
  assert.match(customer.id, /^cus_/);
  assert.equal(customer.livemode, false);
  assert.equal(customer.kycStatus, 'PENDING');
  assert.notEqual(customer.firstName, 'Ada', 'PII comes back encrypted');
  const piiKeys = json<{ data: Array<{ id: string; key: string }> }>(await context.admin('GET', `/admin/v1/merchants/${merchant.id}/pii_keys`)).data;
  assert.equal(await paysail.pii.decrypt(String(customer.firstName), piiKeys), 'Ada');
  assert.equal(await paysail.pii.decrypt(String(customer.address?.postalCode), piiKeys), '94105');
  assert.equal((await paysail.customers.retrieve(customer.id)).referenceId, referenceId);
  assert.deepEqual((await collect(paysail.customers.iterate({ referenceId, limit: 1 }))).map((listed) => listed.id), [customer.id]);
  assert.equal((await paysail.customers.update(customer.id, { email: 'ada.l@example.com' })).email, 'ada.l@example.com');

  const [balanceBefore] = (await paysail.balance.retrieve()).filter((entry) => entry.currency === 'USDC');
  const created = await paysail.payoutPages.create({
    amount: 10_000,
    fundingCurrency: 'USDC',
    clientReferenceId: randomUUID(),
    releaseMethod: 'AUTOMATIC',
    customer: { referenceId, email: 'ada.l@example.com' },
  });
  assert.equal(created.status, 'CREATED');
  assert.equal(created.customer.id, customer.id);
  assert.ok(created.url.endsWith(`/payout-page/${created.id}`));

  const confirmed = await paysail.testHelpers.payoutPages.confirm(created.id, {
    payoutMethod: { type: 'BANK_TRANSFER', accountHolderName: 'Ada Lovelace', routingNumber: '021000021', accountNumber: '000123456789', accountType: 'CHECKING' },
  });
  assert.equal(confirmed.status, 'PENDING');
  assert.equal(typeof confirmed.customerConfirmedAt, 'number');

  const processed = await settle(paysail, created.id);
  assert.equal(processed.status, 'PROCESSED');
  assert.equal(processed['sub-status'], 'PAID');
  assert.deepEqual(processed.payoutMethod, { type: 'BANK_TRANSFER', last4: '6789', routingNumber: '021000021' });
  const read = await paysail.customers.retrieve(customer.id);
  assert.ok('kycStatus' in read && read.kycStatus === 'APPROVED', JSON.stringify(read));
  const [balanceAfter] = (await paysail.balance.retrieve()).filter((entry) => entry.currency === 'USDC');
  assert.equal(balanceAfter?.available, (balanceBefore?.available ?? 0) - 10_000);
  assert.equal(balanceAfter?.reserved, balanceBefore?.reserved);

  const paymentPage = await paysail.paymentPages.create(paymentPageBody());
  assert.equal(paymentPage.status, 'CREATED');
  const paid = await paysail.testHelpers.paymentPages.pay(paymentPage.id, card('4242424242424242'));
  assert.equal(paid.status, 'PAID');
  assert.equal(paid.payinDetails?.last4, '4242');
  const paymentId = String(paid.paymentId);
  assert.match(paymentId, /^pay_/);
  const { checkoutFraudReport: reported } = await paysail.testHelpers.fraudReports.create({ paymentId, fraudReason: 'Card reported stolen' });
  assert.equal(reported.checkoutPaymentId, paymentId);
  assert.equal(reported.cardNumber, '424242******4242');
  assert.deepEqual((await paysail.fraudReports.retrieve(paymentId)).checkoutFraudReport, reported);
  const filtered = await paysail.fraudReports.list({ filters: { checkoutPaymentId: paymentId } });
  assert.equal(filtered.count, 1);
  assert.equal(filtered.checkoutFraudReports[0]?.fraudReason, 'Card reported stolen');

  // The other actions on the same real server.
  const expiring = await paysail.paymentPages.create(paymentPageBody());
  assert.equal((await paysail.paymentPages.expire(expiring.id)).status, 'EXPIRED');
  assert.equal((await paysail.paymentPages.retrieve(expiring.id)).status, 'EXPIRED');
  const manual = await paysail.payoutPages.create({ amount: 500, fundingCurrency: 'USDC', clientReferenceId: randomUUID(), releaseMethod: 'MANUAL', customer: { referenceId, email: 'ada@example.com' } });
  assert.equal((await paysail.payoutPages.cancel(manual.id))['sub-status'], 'MERCHANT_CANCELED');
  const declined = await paysail.payoutPages.create({ amount: 500, fundingCurrency: 'USDC', clientReferenceId: randomUUID(), releaseMethod: 'MANUAL', customer: { referenceId, email: 'ada@example.com' } });
  assert.equal((await paysail.testHelpers.payoutPages.decline(declined.id))['sub-status'], 'CUSTOMER_DECLINED');

  // Webhooks: every delivery the server made verifies with webhooks.verify and the endpoint secret.
  await context.drainJobs();
  const received = receiver.requests.filter((request) => request.path === '/paysail');
  assert.ok(received.length >= 5, `${received.length} deliveries`);
  const verified = received.map((request) => paysail.webhooks.verify(request.headers, request.body, endpoint.secret, { now: context.clock.now() }));
  const types = new Set(verified.map((event) => event.type));
  assert.ok(types.has('PAYOUT_PAGE_UPDATED') && types.has('PAYMENT_SUCCEEDED') && types.has('PAYMENT_EXPIRED'), [...types].join(','));
  assert.ok(verified.some((event) => event.type === 'PAYOUT_PAGE_UPDATED' && event.data.status === 'PROCESSED'));
  assert.throws(() => paysail.webhooks.verify(received[0]?.headers ?? {}, received[0]?.body ?? '', 'whsec_' + Buffer.alloc(24, 1).toString('base64'), { now: context.clock.now() }));

  // Events, deliveries, endpoints: the iterators walk every page (page size 2 forces several).
  const allEvents = (await paysail.events.list({ limit: 100 })).events;
  assert.ok(allEvents.length > 4, `${allEvents.length} events`);
  const walked = await collect(paysail.events.iterate({ limit: 2 }));
  assert.deepEqual(
    walked.map((event) => event.id),
    allEvents.map((event) => event.id),
  );
  const payoutEvents = await collect(paysail.events.iterate({ type: 'PAYOUT_PAGE_UPDATED', limit: 2 }));
  assert.ok(payoutEvents.length >= 3 && payoutEvents.every((event) => event.type === 'PAYOUT_PAGE_UPDATED'));
  assert.deepEqual((await paysail.events.retrieve(walked[0]?.id ?? '')).id, walked[0]?.id);

  const payoutPages = (await paysail.payoutPages.list({ limit: 100 })).payoutPages;
  assert.ok(payoutPages.length >= 2, `${payoutPages.length} payout pages`);
  assert.deepEqual(await collect(paysail.payoutPages.iterate({ limit: 1 })), payoutPages);
  const paymentPages = (await paysail.paymentPages.list({ limit: 100 })).paymentPages;
  assert.ok(paymentPages.length >= 2, `${paymentPages.length} payment pages`);
  assert.deepEqual(await collect(paysail.paymentPages.iterate({ limit: 1 })), paymentPages);

  const deliveries = await collect(paysail.webhookDeliveries.iterate({ limit: 2, endpointId: endpoint.id }));
  assert.equal(deliveries.length, received.length);
  assert.equal(new Set(deliveries.map((delivery) => delivery.id)).size, deliveries.length);
  assert.ok(deliveries.every((delivery) => delivery.status === 'SUCCEEDED'));
  assert.equal((await paysail.webhookDeliveries.retrieve(deliveries[0]?.id ?? '')).endpointId, endpoint.id);
  const redelivered = await paysail.events.redeliver(deliveries[0]?.eventId ?? '', { endpointId: endpoint.id });
  assert.equal(redelivered.deliveries.length, 1);

  assert.deepEqual(
    (await paysail.webhookEndpoints.list()).webhookEndpoints.map((entry) => entry.id),
    [endpoint.id],
  );
  assert.equal((await paysail.webhookEndpoints.retrieve(endpoint.id)).url, endpoint.url);
  const rotated = await paysail.webhookEndpoints.rotateSecret(endpoint.id, { gracePeriodSeconds: 0 });
  assert.notEqual(rotated.secret, endpoint.secret);
  const testDelivery = await paysail.webhookEndpoints.sendTestEvent(endpoint.id, { eventType: 'PAYMENT_SUCCEEDED' });
  assert.equal(testDelivery.event.type, 'PAYMENT_SUCCEEDED');
  assert.equal((await paysail.webhookEndpoints.update(endpoint.id, { enabledEvents: ['FRAUD_REPORTED'] })).enabledEvents.join(), 'FRAUD_REPORTED');
  assert.deepEqual(await paysail.webhookEndpoints.delete(endpoint.id), { id: endpoint.id, deleted: true });
  assert.equal((await paysail.testHelpers.balance.fund({ amount: 5_000, currency: 'USDC' })).available, (balanceAfter?.available ?? 0) + 5_000, 'the canceled and declined pages released their reservations');
});

test('MANUAL payout page: confirm via helper → PENDING/AWAITING_RELEASE until payoutPages.release → PROCESSED', async () => {
  const { paysail } = await sandboxClient();
  const referenceId = `manual-${randomUUID()}`;
  await paysail.customers.create({ referenceId, signupAt: context.clock.now().getTime(), email: 'grace@example.com', ...kyc, firstName: 'Grace' });
  const [balanceBefore] = (await paysail.balance.retrieve()).filter((entry) => entry.currency === 'USDC');
  const created = await paysail.payoutPages.create({
    amount: 7_500,
    fundingCurrency: 'USDC',
    clientReferenceId: randomUUID(),
    releaseMethod: 'MANUAL',
    customer: { referenceId, email: 'grace@example.com' },
  });
  assert.equal(created.releaseMethod, 'MANUAL');

  // Releasing before the customer confirmed is refused, with the typed error.
  const early = await paysail.payoutPages.release(created.id).catch((error: unknown) => error);
  assert.ok(early instanceof PaysailConflictError, String(early));
  assert.equal(early.errorCode, 'INVALID_STATE');

  const confirmed = await paysail.testHelpers.payoutPages.confirm(created.id, {
    payoutMethod: { type: 'BANK_TRANSFER', accountHolderName: 'Grace Hopper', routingNumber: '021000021', accountNumber: '000987654321', accountType: 'CHECKING' },
  });
  assert.equal(confirmed.status, 'PENDING');

  // KYC decides (sandbox provider), and then the page waits for the merchant: no payout without release.
  let waiting = await paysail.payoutPages.retrieve(created.id);
  for (let round = 0; round < 6 && waiting['sub-status'] !== 'AWAITING_RELEASE'; round += 1) {
    await context.drainJobs();
    context.clock.advance(2_000);
    await context.drainJobs();
    waiting = await paysail.payoutPages.retrieve(created.id);
  }
  assert.deepEqual([waiting.status, waiting['sub-status']], ['PENDING', 'AWAITING_RELEASE']);
  context.clock.advance(10_000);
  await context.drainJobs();
  const stillWaiting = await paysail.payoutPages.retrieve(created.id);
  assert.deepEqual([stillWaiting.status, stillWaiting['sub-status']], ['PENDING', 'AWAITING_RELEASE'], 'a MANUAL page is not paid out by itself');
  const [reservedBalance] = (await paysail.balance.retrieve()).filter((entry) => entry.currency === 'USDC');
  assert.equal(reservedBalance?.reserved, (balanceBefore?.reserved ?? 0) + 7_500, 'the amount is reserved while it waits');

  const released = await paysail.payoutPages.release(created.id);
  assert.equal(released.status, 'PROCESSING');
  const processed = await settle(paysail, created.id);
  assert.deepEqual([processed.status, processed['sub-status']], ['PROCESSED', 'PAID']);
  assert.deepEqual(processed.payoutMethod, { type: 'BANK_TRANSFER', last4: '4321', routingNumber: '021000021' });
  const [balanceAfter] = (await paysail.balance.retrieve()).filter((entry) => entry.currency === 'USDC');
  assert.equal(balanceAfter?.available, (balanceBefore?.available ?? 0) - 7_500);
  assert.equal(balanceAfter?.reserved, balanceBefore?.reserved);
  assert.equal(balanceAfter?.inFlight, balanceBefore?.inFlight);

  const again = await paysail.payoutPages.release(created.id).catch((error: unknown) => error);
  assert.ok(again instanceof PaysailConflictError, 'a processed page cannot be released again');
});

test('fraud reports: the offset iterator walks every page in list order', async () => {
  const { paysail } = await sandboxClient();
  const paymentIds: string[] = [];
  for (let index = 0; index < 5; index += 1) {
    const page = await paysail.paymentPages.create(paymentPageBody({ amount: 1000 + index }));
    const paid = await paysail.testHelpers.paymentPages.pay(page.id, card('4242424242424242'));
    paymentIds.push(String(paid.paymentId));
    await paysail.testHelpers.fraudReports.create({ paymentId: String(paid.paymentId), fraudReason: `reason ${index}` });
    context.clock.advance(1_000);
  }
  const oneList = await paysail.fraudReports.list({ pagination: { limit: 100 } });
  assert.equal(oneList.count, 5);
  const walked = await collect(paysail.fraudReports.iterate({ pagination: { limit: 2 } }));
  assert.deepEqual(
    walked.map((report) => report.checkoutPaymentId),
    oneList.checkoutFraudReports.map((report) => report.checkoutPaymentId),
  );
  assert.deepEqual(new Set(walked.map((report) => report.checkoutPaymentId)), new Set(paymentIds));
  const fromOffset = await collect(paysail.fraudReports.iterate({ pagination: { offset: 3, limit: 1 } }));
  assert.deepEqual(
    fromOffset.map((report) => report.checkoutPaymentId),
    walked.slice(3).map((report) => report.checkoutPaymentId),
  );
});

test('entitlements: the cursor iterator walks every page, ascending and descending', async () => {
  const { paysail } = await sharedClient();
  const page = await paysail.paymentPages.create(paymentPageBody({ amount: 1500, subscription: { productId: 'prod_pro', interval: 'MONTH' } }));
  const paid = await paysail.testHelpers.paymentPages.pay(page.id, card('4242424242424242'));
  const subscriptionId = String(paid.subscriptionId);
  assert.match(subscriptionId, /^sub_/);
  for (let renewal = 0; renewal < 4; renewal += 1) {
    context.clock.advance(1_000);
    const renewed = await paysail.testHelpers.subscriptions.renew(subscriptionId);
    assert.equal(renewed.status, 'ACTIVE');
  }
  await context.drainJobs();
  const all = await paysail.entitlements.list({ subscriptionId });
  assert.equal(all.entitlements.length, 5);
  assert.equal(all.hasMore, false);
  const ascending = await collect(paysail.entitlements.iterate({ subscriptionId, limit: 2 }));
  assert.deepEqual(
    ascending.map((entitlement) => entitlement.id),
    all.entitlements.map((entitlement) => entitlement.id),
  );
  const descending = await collect(paysail.entitlements.iterate({ subscriptionId, limit: 2, sort: 'desc' }));
  assert.deepEqual(
    descending.map((entitlement) => entitlement.id),
    [...ascending].reverse().map((entitlement) => entitlement.id),
  );
  assert.ok(ascending.every((entitlement) => entitlement.idempotencyKey === `${subscriptionId}-${entitlement.startPeriod}-${entitlement.endPeriod}`));
  const firstPage = await paysail.entitlements.list({ subscriptionId, limit: 2 });
  assert.equal(firstPage.hasMore, true);
  assert.equal(typeof firstPage.nextPageToken, 'string');

  const subscription = await paysail.subscriptions.retrieve(subscriptionId);
  assert.equal(subscription.id, subscriptionId);
  assert.deepEqual(await collect(paysail.subscriptions.iterate({ status: 'ACTIVE', limit: 1 })), [subscription]);
  assert.equal((await paysail.subscriptions.cancel(subscriptionId)).cancelAtPeriodEnd, true);
});

test('typed errors from the real server carry statusCode, errorCode, errorMessage and requestId', async () => {
  const { paysail } = await sharedClient();
  const notFound = await paysail.customers.retrieve('cus_doesnotexist').catch((error: unknown) => error);
  assert.ok(notFound instanceof PaysailNotFoundError);
  assert.equal(notFound.statusCode, 404);
  assert.equal(notFound.errorCode, 'NOT_FOUND');
  assert.match(String(notFound.requestId), /^req_/);
  assert.equal(notFound.requestId, notFound.headers?.get('request-id'));
  assert.equal(notFound.attempts, 1);

  const invalid = await paysail.customers.create({ referenceId: 'x', signupAt: -5 }).catch((error: unknown) => error);
  assert.ok(invalid instanceof PaysailInvalidRequestError);
  assert.equal(invalid.errorCode, 'WRONG_PARAMETER');
  assert.match(invalid.errorMessage, /signupAt/);

  const referenceId = `dup-${randomUUID()}`;
  await paysail.customers.create({ referenceId, signupAt: context.clock.now().getTime() });
  const duplicate = await paysail.customers.create({ referenceId, signupAt: context.clock.now().getTime() }).catch((error: unknown) => error);
  assert.ok(duplicate instanceof PaysailConflictError);
  assert.equal(duplicate.errorCode, 'DUPLICATE_REFERENCE_ID');

  const page = await paysail.paymentPages.create(paymentPageBody());
  const declined = await paysail.testHelpers.paymentPages.pay(page.id, card('4000000000000002')).catch((error: unknown) => error);
  assert.ok(declined instanceof PaysailCardError);
  assert.equal(declined.statusCode, 402);
  assert.equal(typeof declined.declineReason, 'string');

  const live = await paysail.customers.create({ referenceId: `live-${randomUUID()}`, signupAt: context.clock.now().getTime() }, { livemode: true }).catch((error: unknown) => error);
  assert.ok(live instanceof PaysailPermissionError);
  assert.equal(live.errorCode, 'LIVE_MODE_NOT_ENABLED');

  const stranger = new Paysail({ apiKey: 'sk_unknown_key', baseUrl, livemode: false });
  const unauthorized = await stranger.balance.retrieve().catch((error: unknown) => error);
  assert.ok(unauthorized instanceof PaysailAuthenticationError);
  assert.equal(unauthorized.errorCode, 'UNAUTHORIZED');

  // Another merchant's id is a 404, not a leak.
  const other = await sandboxClient();
  const foreign = await other.paysail.paymentPages.retrieve(page.id).catch((error: unknown) => error);
  assert.ok(foreign instanceof PaysailNotFoundError);
});

test('the same Idempotency-Key replays the first answer; a different request with it is refused', async () => {
  const { paysail } = await sharedClient();
  const body = { referenceId: `idem-${randomUUID()}`, signupAt: context.clock.now().getTime() };
  const first = await paysail.requestWithResponse('POST /v1/customers', { body }, { idempotencyKey: 'sdk-test-key-1' });
  const again = await paysail.requestWithResponse('POST /v1/customers', { body }, { idempotencyKey: 'sdk-test-key-1' });
  assert.equal(first.idempotentReplayed, false);
  assert.equal(again.idempotentReplayed, true);
  assert.equal(again.data.id, first.data.id);
  const reused = await paysail.customers.create({ ...body, referenceId: `${body.referenceId}-other` }, { idempotencyKey: 'sdk-test-key-1' }).catch((error: unknown) => error);
  assert.ok(reused instanceof PaysailConflictError);
  assert.equal(reused.errorCode, 'IDEMPOTENCY_KEY_REUSED');
});
