import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { json, type TestContext, type TestMerchant } from '../../helpers/context.ts';

/** Test data for the dashboard screens, created through the public API (the same services the dashboard reads). */

export const identity = {
  firstName: 'Ada',
  lastName: 'Lovelace',
  dateOfBirth: '1990-12-10',
  phoneNumber: '(415) 555-0123',
  address: { line1: '1 Market St', city: 'San Francisco', state: 'CA', postalCode: '94105', country: 'US' },
};

export const bankAccount = { type: 'BANK_TRANSFER', accountHolderName: 'Ada Lovelace', routingNumber: '021000021', accountNumber: '000123456789', accountType: 'CHECKING' };

export function futureCard(cardNumber: string) {
  return { cardNumber, expMonth: 12, expYear: new Date().getUTCFullYear() + 3, cvc: '737', cardholderName: 'Ada Lovelace' };
}

async function call<T>(context: TestContext, merchant: TestMerchant, method: string, url: string, body?: unknown): Promise<T> {
  const response = await context.request({ method, url, apiKey: merchant.apiKey, ...(body === undefined ? {} : { body }) });
  assert.equal(response.statusCode, 200, `${method} ${url}: ${response.body}`);
  return json<{ data: T }>(response).data;
}

export function createCustomer(context: TestContext, merchant: TestMerchant, fields: Record<string, unknown> = {}) {
  return call<{ id: string; referenceId: string; kycStatus: string }>(context, merchant, 'POST', '/v1/customers?livemode=false', { referenceId: `cust-${randomUUID()}`, signupAt: Date.now() - 1000, ...fields });
}

/** Runs the sandbox KYC decision (and any other due job) by moving the clock past its delay. */
export async function settleJobs(context: TestContext, ms = 2_500): Promise<void> {
  await context.drainJobs();
  context.clock.advance(ms);
  await context.drainJobs();
}

export interface PayoutPage {
  id: string;
  status: string;
  'sub-status': string;
  clientReferenceId: string;
}

export function createPayoutPage(context: TestContext, merchant: TestMerchant, overrides: Record<string, unknown> = {}) {
  return call<PayoutPage>(context, merchant, 'POST', '/v1/payout_pages?livemode=false', {
    amount: 12_345,
    fundingCurrency: 'USDC',
    clientReferenceId: `payout-${randomUUID()}`,
    releaseMethod: 'MANUAL',
    customer: { referenceId: `payee-${randomUUID()}`, email: 'payee@example.com' },
    ...overrides,
  });
}

/** A MANUAL payout page whose verified customer confirmed a bank account: PENDING / AWAITING_RELEASE. */
export async function payoutAwaitingRelease(context: TestContext, merchant: TestMerchant): Promise<PayoutPage> {
  const customer = await createCustomer(context, merchant, { ...identity, email: 'payee@example.com' });
  await settleJobs(context);
  const page = await createPayoutPage(context, merchant, { customer: { referenceId: customer.referenceId, email: 'payee@example.com' } });
  const confirmed = await call<PayoutPage>(context, merchant, 'POST', `/v1/test_helpers/payout_pages/${page.id}/confirm?livemode=false`, { payoutMethod: bankAccount });
  assert.equal(confirmed['sub-status'], 'AWAITING_RELEASE');
  return confirmed;
}

export interface PaymentPage {
  id: string;
  status: string;
  clientReferenceId: string;
  paymentId?: string;
  subscriptionId?: string;
}

export function createPaymentPage(context: TestContext, merchant: TestMerchant, overrides: Record<string, unknown> = {}) {
  return call<PaymentPage>(context, merchant, 'POST', '/v1/payment_pages?livemode=false', {
    amount: 2_500,
    currency: 'USD',
    clientReferenceId: `order-${randomUUID()}`,
    customer: { referenceId: `buyer-${randomUUID()}`, email: 'buyer@example.com' },
    ...overrides,
  });
}

export function payPaymentPage(context: TestContext, merchant: TestMerchant, pageId: string, cardNumber = '4242424242424242') {
  return call<PaymentPage>(context, merchant, 'POST', `/v1/test_helpers/payment_pages/${pageId}/pay?livemode=false`, futureCard(cardNumber));
}

export function reportFraud(context: TestContext, merchant: TestMerchant, paymentId: string, fraudReason = 'Card reported stolen') {
  return call<{ checkoutFraudReport: { checkoutPaymentId: string; fraudIssueDate: string } }>(context, merchant, 'POST', '/v1/test_helpers/fraud_reports?livemode=false', { paymentId, fraudReason });
}
