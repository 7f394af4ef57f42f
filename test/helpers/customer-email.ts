import assert from 'node:assert/strict';
import type { KeyRing } from '../../src/crypto/keyring.ts';
import { createTestContext, json, type TestContext, type TestMerchant } from './context.ts';

/** A page of `GET /v1/customers`, as far as the e-mail filter's tests read it. */
export interface CustomerPage {
  customers: Array<{ id: string; livemode: boolean }>;
  hasMore: boolean;
  nextCursor?: string;
}

export const ada = 'ada.lovelace@example.com';

/** The customers `openEmailListSuite` creates, by what tells them apart. */
export interface EmailListSuite {
  context: TestContext;
  /** Has live mode. */
  merchant: TestMerchant;
  other: TestMerchant;
  /** `ada` in sandbox (referenceId email-1). */
  sandboxAda: string;
  /** `ada` with surrounding spaces, in live mode (email-2). */
  liveAda: string;
  /** `Ada.Lovelace@example.com`: another address, by case (email-3). */
  upperAda: string;
  /** grace@example.com (email-4). */
  grace: string;
}

/**
 * A context on `keyRing` with the merchant's customers above, one customer without an e-mail
 * (email-5) and the other merchant's customer with `ada` (email-1 too), a second apart each.
 */
export async function openEmailListSuite(keyRing: KeyRing): Promise<EmailListSuite> {
  const context = await createTestContext({ keyRing });
  const merchant = await context.createMerchant({ live: true });
  const other = await context.createMerchant();
  const create = async (target: TestMerchant, livemode: boolean, referenceId: string, email?: string): Promise<string> => {
    const response = await context.request({
      method: 'POST',
      url: `/v1/customers?livemode=${livemode}`,
      apiKey: target.apiKey,
      body: { referenceId, signupAt: context.clock.now().getTime(), ...(email === undefined ? {} : { email }) },
    });
    assert.equal(response.statusCode, 200, response.body);
    context.clock.advance(1_000);
    return json<{ data: { id: string } }>(response).data.id;
  };
  const suite = {
    context,
    merchant,
    other,
    sandboxAda: await create(merchant, false, 'email-1', ada),
    liveAda: await create(merchant, true, 'email-2', `  ${ada} `),
    upperAda: await create(merchant, false, 'email-3', 'Ada.Lovelace@example.com'),
    grace: await create(merchant, false, 'email-4', 'grace@example.com'),
  };
  await create(merchant, false, 'email-5');
  await create(other, false, 'email-1', ada);
  return suite;
}

/** The ids `GET /v1/customers?email=…` answers (`extra`: more query), by default as the suite's merchant. */
export function byEmailCall(current: () => { context: TestContext; merchant: TestMerchant }) {
  return async (email: string, extra = '', on: TestContext = current().context, apiKey = current().merchant.apiKey): Promise<string[]> => {
    const response = await on.request({ method: 'GET', url: `/v1/customers?email=${encodeURIComponent(email)}${extra}`, apiKey });
    assert.equal(response.statusCode, 200, response.body);
    return json<{ data: CustomerPage }>(response).data.customers.map((customer) => customer.id);
  };
}
