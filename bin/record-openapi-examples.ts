/**
 * `npm run docs:openapi-examples`: records one real request and answer per operation of the OpenAPI
 * document (a sandbox walk through every route on a throw-away database) into
 * src/http/openapi-examples.json, which the served document shows as each operation's examples.
 * test/docs/openapi-examples.test.ts checks that every operation has them and that they match the
 * schemas; re-run this after changing a route's schemas.
 */
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { adminApiKey, basicAuth, createTestContext } from '../test/helpers/context.ts';
import { listOperations, matchOperation, type OpenApiDocument } from '../test/reliability/openapi.ts';
import type { OperationExample } from '../src/http/openapi-examples.ts';

const target = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../src/http/openapi-examples.json');
const context = await createTestContext({ env: { LOG_LEVEL: 'warn' } });
const operations = listOperations(context.app.swagger() as unknown as OpenApiDocument);
const recorded: Record<string, OperationExample> = {};

type Json = Record<string, unknown>;

/** Sends one request; the first 2xx answer of each operation becomes its example. Returns `data` (or the body). */
async function call(method: 'GET' | 'POST' | 'DELETE', url: string, options: { body?: Json; apiKey?: string; admin?: boolean } = {}): Promise<Json> {
  const headers: Record<string, string> = {};
  if (options.admin) {
    headers.authorization = `Bearer ${adminApiKey}`;
  } else if (options.apiKey) {
    headers.authorization = basicAuth(options.apiKey);
  }
  if (options.body) {
    headers['content-type'] = 'application/json';
  }
  const response = await context.app.inject({ method, url, headers, ...(options.body ? { payload: JSON.stringify(options.body) } : {}) });
  if (response.statusCode >= 300) {
    throw new Error(`${method} ${url} answered ${response.statusCode}: ${response.body.slice(0, 300)}`);
  }
  const answer = JSON.parse(response.body) as Json;
  const parsed = new URL(url, 'http://example.invalid');
  const operation = matchOperation(operations, method, parsed.pathname);
  const operationId = (operation?.operation as { operationId?: string } | undefined)?.operationId;
  if (operation && operationId && !recorded[operationId]) {
    const match = operation.matcher.exec(parsed.pathname);
    const names = [...operation.path.matchAll(/\{([^}]+)\}/g)].map((found) => found[1] ?? '');
    const parameters: Record<string, string> = Object.fromEntries(names.map((name, index) => [name, decodeURIComponent(match?.[index + 1] ?? '')]));
    for (const [name, value] of parsed.searchParams) {
      parameters[name] = value;
    }
    recorded[operationId] = { parameters, ...(options.body ? { requestBody: options.body } : {}), response: { status: String(response.statusCode), body: answer } };
  }
  return (answer.status === 'SUCCEEDED' ? answer.data : answer) as Json;
}

const sandbox = 'livemode=false';
const bank = { type: 'BANK_TRANSFER', accountHolderName: 'Ada Lovelace', routingNumber: '021000021', accountNumber: '000123456789', accountType: 'CHECKING' };
const person = {
  firstName: 'Ada',
  lastName: 'Lovelace',
  dateOfBirth: '1990-12-10',
  phoneNumber: '(415) 555-0123',
  address: { line1: '1 Market St', city: 'San Francisco', state: 'CA', postalCode: '94105', country: 'US' },
};
const card = (cardNumber: string) => ({ cardNumber, expMonth: 12, expYear: 2030, cvc: '737', cardholderName: 'Ada Lovelace' });

async function settle(ms = 5_000): Promise<void> {
  await context.drainJobs();
  context.clock.advance(ms);
  await context.drainJobs();
}

try {
  await call('GET', '/healthz');
  await call('GET', '/readyz');

  // The operator's API.
  const created = await call('POST', '/admin/v1/merchants', { admin: true, body: { name: 'Acme Payouts', email: 'ops@acme.example' } });
  const merchantId = String((created.merchant as Json).id);
  const apiKey = String(created.apiKey);
  await call('GET', '/admin/v1/merchants', { admin: true });
  await call('GET', `/admin/v1/merchants/${merchantId}`, { admin: true });
  await call('POST', `/admin/v1/merchants/${merchantId}/live`, { admin: true });
  await call('POST', `/admin/v1/merchants/${merchantId}/settings`, { admin: true, body: { fraudReportWebhooksEnabled: true } });
  const logo = '<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 40 40"><rect width="40" height="40" rx="8" fill="#635bff"/></svg>';
  await call('POST', `/admin/v1/merchants/${merchantId}/branding`, {
    admin: true,
    body: { displayName: 'Acme Books', brandColor: '#635bff', supportEmail: 'help@acme.example', supportUrl: 'https://acme.example/help', logo: Buffer.from(logo).toString('base64') },
  });
  await call('GET', `/admin/v1/merchants/${merchantId}/branding`, { admin: true });
  const second = await call('POST', `/admin/v1/merchants/${merchantId}/api_keys`, { admin: true, body: { name: 'reporting' } });
  await call('GET', `/admin/v1/merchants/${merchantId}/api_keys`, { admin: true });
  await call('POST', `/admin/v1/merchants/${merchantId}/api_keys/${String((second.apiKeyRecord as Json | undefined)?.id ?? second.id)}/revoke`, { admin: true });
  await call('GET', `/admin/v1/merchants/${merchantId}/pii_keys`, { admin: true });
  await call('POST', `/admin/v1/merchants/${merchantId}/pii_keys/rotate`, { admin: true });
  await call('POST', '/admin/v1/retention', { admin: true, body: { emailBodiesDays: 14, idempotencyRecordsHours: 48 } });
  await call('GET', '/admin/v1/retention', { admin: true });
  await call('POST', `/admin/v1/merchants/${merchantId}/balance/credit`, { admin: true, body: { amount: 500_000, currency: 'USD' } });
  await call('GET', `/admin/v1/merchants/${merchantId}/balance`, { admin: true });

  // Customers and identity verification.
  const customer = await call('POST', `/v1/customers?${sandbox}`, { apiKey, body: { referenceId: 'user-42', signupAt: context.clock.now().getTime() - 86_400_000, email: 'ada@example.com', ...person } });
  const customerId = String(customer.id);
  await call('GET', `/v1/customers/${customerId}?${sandbox}`, { apiKey });
  await call('POST', `/v1/customers/${customerId}?${sandbox}`, { apiKey, body: { email: 'ada.lovelace@example.com' } });
  await call('POST', `/admin/v1/customers/${customerId}/supported_payout_methods`, { admin: true, body: { supportedPayoutMethods: ['BANK_TRANSFER', 'CRYPTO_WALLET'] } });
  const review = await call('POST', `/v1/customers?${sandbox}`, { apiKey, body: { referenceId: 'user-43', signupAt: context.clock.now().getTime() - 86_400_000, email: 'grace@example.com', ...person, firstName: 'Grace', lastName: 'Review' } });
  await settle();
  await call('GET', `/v1/customers?${sandbox}&limit=2`, { apiKey });
  const leaving = await call('POST', `/v1/customers?${sandbox}`, { apiKey, body: { referenceId: 'user-44', signupAt: context.clock.now().getTime() - 86_400_000, email: 'leaving@example.com' } });
  await call('GET', `/v1/customers/${String(leaving.id)}/export?${sandbox}`, { apiKey });
  await call('POST', `/v1/customers/${String(leaving.id)}/erase?${sandbox}`, { apiKey });
  await call('GET', `/v1/kyc_reviews?${sandbox}`, { apiKey });
  await call('POST', `/v1/customers/${String(review.id)}/kyc_review?${sandbox}`, { apiKey, body: { decision: 'APPROVED', reason: 'Passport checked against the selfie' } });

  // Balance and payout pages.
  await call('GET', `/v1/balance?${sandbox}`, { apiKey });
  await call('POST', `/v1/test_helpers/balance/fund?${sandbox}`, { apiKey, body: { amount: 1_000_000, currency: 'USDC' } });
  const payoutBody = (reference: string) => ({ amount: 10_000, fundingCurrency: 'USDC', clientReferenceId: reference, releaseMethod: 'MANUAL', customer: { referenceId: 'user-42', email: 'ada@example.com' } });
  const payout = await call('POST', `/v1/payout_pages?${sandbox}`, { apiKey, body: { ...payoutBody('payout-2026-0001'), metadata: { invoice: 'INV-1001' } } });
  await call('POST', `/v1/test_helpers/payout_pages/${String(payout.id)}/confirm?${sandbox}`, { apiKey, body: { payoutMethod: bank } });
  await settle();
  await call('POST', `/v1/payout_pages/${String(payout.id)}/release?${sandbox}`, { apiKey });
  await call('GET', `/v1/payout_pages/${String(payout.id)}?${sandbox}`, { apiKey });
  await call('GET', `/v1/payout_pages?${sandbox}&limit=2`, { apiKey });
  const cancelled = await call('POST', `/v1/payout_pages?${sandbox}`, { apiKey, body: payoutBody('payout-2026-0002') });
  await call('POST', `/v1/payout_pages/${String(cancelled.id)}/cancel?${sandbox}`, { apiKey });
  const declined = await call('POST', `/v1/payout_pages?${sandbox}`, { apiKey, body: payoutBody('payout-2026-0003') });
  await call('POST', `/v1/test_helpers/payout_pages/${String(declined.id)}/decline?${sandbox}`, { apiKey });
  await settle();

  // Webhook endpoints, events and deliveries.
  const endpoint = await call('POST', `/v1/webhook_endpoints?${sandbox}`, { apiKey, body: { url: 'https://hooks.acme.example/paysail', enabledEvents: ['*'], description: 'Order service' } });
  const endpointId = String(endpoint.id);
  await call('GET', `/v1/webhook_endpoints?${sandbox}`, { apiKey });
  await call('GET', `/v1/webhook_endpoints/${endpointId}?${sandbox}`, { apiKey });
  await call('POST', `/v1/webhook_endpoints/${endpointId}?${sandbox}`, { apiKey, body: { description: 'Order service (primary)' } });
  await call('POST', `/v1/webhook_endpoints/${endpointId}/rotate_secret?${sandbox}`, { apiKey, body: { gracePeriodSeconds: 3600 } });
  await call('POST', `/v1/webhook_endpoints/${endpointId}/test?${sandbox}`, { apiKey, body: { eventType: 'PAYMENT_SUCCEEDED' } });
  const events = await call('GET', `/v1/events?${sandbox}&limit=2`, { apiKey });
  const eventId = String(((events.events as Json[])[0] as Json).id);
  await call('GET', `/v1/events/${eventId}?${sandbox}`, { apiKey });
  await call('POST', `/v1/events/${eventId}/redeliver?${sandbox}`, { apiKey, body: { endpointId } });
  await settle();
  const deliveries = await call('GET', `/v1/webhook_deliveries?${sandbox}&limit=2`, { apiKey });
  await call('GET', `/v1/webhook_deliveries/${String(((deliveries.deliveries as Json[])[0] as Json).id)}?${sandbox}`, { apiKey });

  // Payment pages, refunds, fraud reports, disputes.
  const pageBody = (reference: string, extra: Json = {}) => ({ amount: 2_500, currency: 'USD', clientReferenceId: reference, customer: { referenceId: 'user-42', email: 'ada@example.com' }, ...extra });
  const page = await call('POST', `/v1/payment_pages?${sandbox}`, { apiKey, body: pageBody('order-1001', { metadata: { cart: 'c_81' }, description: 'Order 1001: tea and a mug', lineItems: [{ name: 'Darjeeling tea, 250 g', quantity: 2, unitAmount: 900 }, { name: 'Stoneware mug', quantity: 1, unitAmount: 700 }] }) });
  const paid = await call('POST', `/v1/test_helpers/payment_pages/${String(page.id)}/pay?${sandbox}`, { apiKey, body: card('4242424242424242') });
  await call('GET', `/v1/payment_pages/${String(page.id)}?${sandbox}`, { apiKey });
  await call('GET', `/v1/payment_pages?${sandbox}&limit=2`, { apiKey });
  const expiring = await call('POST', `/v1/payment_pages?${sandbox}`, { apiKey, body: pageBody('order-1002') });
  await call('POST', `/v1/payment_pages/${String(expiring.id)}/expire?${sandbox}`, { apiKey });
  const refund = await call('POST', `/v1/refunds?${sandbox}`, { apiKey, body: { paymentPageId: String(page.id), amount: 500, reason: 'REQUESTED_BY_CUSTOMER' } });
  await settle();
  await call('GET', `/v1/refunds/${String(refund.id)}?${sandbox}`, { apiKey });
  await call('GET', `/v1/refunds?${sandbox}&limit=2`, { apiKey });
  const paymentId = String(paid.paymentId ?? (paid.payment as Json | undefined)?.id);
  await call('POST', `/v1/test_helpers/fraud_reports?${sandbox}`, { apiKey, body: { paymentId, fraudReason: 'Card reported stolen' } });
  await call('GET', `/v1/fraud_reports?${sandbox}`, { apiKey });
  await call('GET', `/v1/fraud_reports/${paymentId}?${sandbox}`, { apiKey });
  const disputedPage = await call('POST', `/v1/payment_pages?${sandbox}`, { apiKey, body: pageBody('order-1003') });
  await call('POST', `/v1/test_helpers/payment_pages/${String(disputedPage.id)}/pay?${sandbox}`, { apiKey, body: card('4000000000000259') });
  await settle(10_000);
  await settle(10_000);
  const disputes = await call('GET', `/v1/disputes?${sandbox}&limit=2`, { apiKey });
  const disputeId = String(((disputes.disputes as Json[])[0] as Json).id);
  await call('GET', `/v1/disputes/${disputeId}?${sandbox}`, { apiKey });
  await call('POST', `/v1/test_helpers/disputes/${disputeId}/close?${sandbox}`, { apiKey, body: { outcome: 'WON' } });

  // Subscriptions and entitlements.
  const subscribed = await call('POST', `/v1/payment_pages?${sandbox}`, { apiKey, body: pageBody('plan-pro-42', { subscription: { productId: 'pro-monthly', interval: 'MONTH', intervalCount: 1 } }) });
  await call('POST', `/v1/test_helpers/payment_pages/${String(subscribed.id)}/pay?${sandbox}`, { apiKey, body: card('4242424242424242') });
  await settle();
  const subscriptions = await call('GET', `/v1/subscriptions?${sandbox}&limit=2`, { apiKey });
  const subscriptionId = String(((subscriptions.subscriptions as Json[])[0] as Json).id);
  await call('GET', `/v1/subscriptions/${subscriptionId}?${sandbox}`, { apiKey });
  await call('POST', `/v1/test_helpers/subscriptions/${subscriptionId}/renew?${sandbox}`, { apiKey });
  await settle();
  await call('GET', `/v1/entitlements?${sandbox}&limit=2`, { apiKey });
  await call('POST', `/v1/subscriptions/${subscriptionId}/cancel?${sandbox}`, { apiKey });
  await call('DELETE', `/v1/webhook_endpoints/${endpointId}?${sandbox}`, { apiKey });

  // The operator's reports.
  const day = context.clock.now().toISOString().slice(0, 10);
  await call('GET', `/admin/v1/reconciliation/payouts?date=${day}`, { admin: true });
  await call('GET', '/admin/v1/payouts/awaiting-funding', { admin: true });
  await call('GET', '/admin/v1/emails?limit=1', { admin: true });
  const csv = `transaction_id,card_bin,card_last4,transaction_date,transaction_amount,transaction_currency,fraud_type,fraud_reported_date,fraud_amount,fraud_currency\n,424242,4242,${day},25.00,USD,6,${day},,\n`;
  await call('POST', '/admin/v1/fraud_imports', { admin: true, body: { network: 'visa', csv, livemode: false } });
  // The audit log of everything above (rows are written just after each answer).
  await context.platform.services.audit.flush();
  await call('GET', `/admin/v1/audit_events?merchantId=${merchantId}&action=payoutPages_release&limit=2`, { admin: true });

  // Last (it moves the clock): a page locked by 10 wrong codes on the hosted page (through the page's own code), then reissued.
  const locked = await call('POST', `/v1/payout_pages?${sandbox}`, { apiKey, body: { amount: 10_000, fundingCurrency: 'USDC', clientReferenceId: 'payout-2026-0004', releaseMethod: 'MANUAL', customer: { referenceId: 'user-42', email: 'ada@example.com' } } });
  const { access } = context.platform.services.payoutPages;
  for (let guess = 0; guess < 10; guess += 1) {
    if (guess % 5 === 0) {
      context.clock.advance(60 * 60_000);
      await access.sendCode(String(locked.id));
    }
    await access.verify(String(locked.id), 'wrong!');
  }
  await call('POST', `/v1/payout_pages/${String(locked.id)}/reissue?${sandbox}`, { apiKey });

  const missing = operations.map((operation) => (operation.operation as { operationId?: string }).operationId ?? '').filter((id) => !recorded[id]);
  if (missing.length > 0) {
    throw new Error(`no example recorded for ${missing.join(', ')}`);
  }
  const sorted = Object.fromEntries(Object.entries(recorded).sort(([a], [b]) => a.localeCompare(b)));
  fs.writeFileSync(target, `${JSON.stringify(sorted, null, 2)}\n`);
  process.stdout.write(`Wrote ${Object.keys(sorted).length} examples to ${path.relative(process.cwd(), target)}\n`);
} finally {
  await context.close();
}
