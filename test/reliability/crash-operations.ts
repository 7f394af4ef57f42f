import { bankMethod, fullKyc, walletMethod } from '../helpers/payout-pages.ts';
import { cardBody, testCards } from '../helpers/payment-pages.ts';

/**
 * The crash harness's operation mix (crash.ts drives it): the seeded random source, the kinds of
 * operation, how a new one is drawn (by weight) and the follow-up each acknowledged one queues —
 * payout page → confirm (bank through the Increase replica, or wallet through the sandbox rail),
 * payment page → pay → partial refund, subscription page → pay → renew.
 */

/** mulberry32: small seeded PRNG so a failing run can be replayed with its seed. */
export function seededRandom(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let value = state;
    value = Math.imul(value ^ (value >>> 15), value | 1);
    value ^= value + Math.imul(value ^ (value >>> 7), value | 61);
    return ((value ^ (value >>> 14)) >>> 0) / 4294967296;
  };
}

export type OperationKind =
  | 'createCustomer'
  | 'createPayoutPage'
  | 'confirmPayoutPage'
  | 'createPaymentPage'
  | 'payPaymentPage'
  | 'refundPayment'
  | 'createSubscription'
  | 'paySubscription'
  | 'renewSubscription'
  | 'fundBalance';

export interface Operation {
  kind: OperationKind;
  method: string;
  path: string;
  body?: unknown;
  /** The natural key the resource is found by when the answer was lost (create operations). */
  reference?: string;
  /** The resource the operation acts on (follow-up operations). */
  targetId?: string;
  /** Payment pages and their payment: the page amount (the refund gives half of it back). */
  amount?: number;
  /** Payout pages: paid to a bank account (Increase replica, USD) or a wallet (sandbox rail, USDC). */
  payout?: 'bank' | 'wallet';
}

const creationWeights: Array<[OperationKind, number]> = [
  ['createCustomer', 3],
  ['createPayoutPage', 3],
  ['createPaymentPage', 3],
  ['createSubscription', 1],
  // Sandbox funding has no natural key: only the Idempotency-Key keeps a retried one from funding twice.
  ['fundBalance', 1],
];

function payoutPage(reference: string, counter: number, payout: 'bank' | 'wallet'): Operation {
  return {
    kind: 'createPayoutPage',
    method: 'POST',
    path: '/v1/payout_pages?livemode=false',
    reference,
    payout,
    body: {
      amount: 100 + counter,
      fundingCurrency: payout === 'bank' ? 'USD' : 'USDC',
      clientReferenceId: reference,
      releaseMethod: 'AUTOMATIC',
      customer: { referenceId: `payee-${reference}`, email: `payee-${reference}@example.com` },
    },
  };
}

/** Draws new operations and derives follow-ups; `seed` names the references, `random` is the run's seeded source. */
export function createOperationMix(seed: number, random: () => number) {
  let counter = 0;
  const newOperation = (): Operation => {
    const total = creationWeights.reduce((sum, [, weight]) => sum + weight, 0);
    let pick = random() * total;
    let kind: OperationKind = 'createCustomer';
    for (const [candidate, weight] of creationWeights) {
      pick -= weight;
      if (pick < 0) {
        kind = candidate;
        break;
      }
    }
    counter += 1;
    const reference = `crash-${seed}-${counter}`;
    switch (kind) {
      case 'createCustomer':
        return { kind, method: 'POST', path: '/v1/customers?livemode=false', reference, body: { referenceId: reference, signupAt: Date.now(), email: `${reference}@example.com`, ...fullKyc } };
      case 'createPayoutPage':
        // Bank payouts are USD (the Increase rail pays USD only); wallet payouts USDC.
        return payoutPage(reference, counter, counter % 3 === 0 ? 'wallet' : 'bank');
      case 'createPaymentPage':
        return {
          kind,
          method: 'POST',
          path: '/v1/payment_pages?livemode=false',
          reference,
          amount: 500 + counter,
          body: { amount: 500 + counter, currency: 'USD', clientReferenceId: reference, customer: { referenceId: `buyer-${reference}`, email: `buyer-${reference}@example.com` } },
        };
      case 'fundBalance':
        return { kind, method: 'POST', path: '/v1/test_helpers/balance/fund?livemode=false', body: { amount: 1_000 + counter, currency: 'USD' } };
      default:
        return {
          kind: 'createSubscription',
          method: 'POST',
          path: '/v1/payment_pages?livemode=false',
          reference,
          body: { amount: 1_500, currency: 'USD', clientReferenceId: reference, customer: { referenceId: `subscriber-${reference}`, email: `subscriber-${reference}@example.com` }, subscription: { productId: 'prod_pro', interval: 'MONTH' } },
        };
    }
  };

  /** A new payout page paid to a bank account (its confirmation makes a transfer at the Increase replica). */
  const newBankPayout = (): Operation => {
    counter += 1;
    return payoutPage(`crash-${seed}-${counter}`, counter, 'bank');
  };

  const followUpOf = (operation: Operation, id: string): Operation | undefined => {
    switch (operation.kind) {
      case 'createPayoutPage': {
        const payoutMethod = operation.payout === 'bank' ? bankMethod : walletMethod;
        return { kind: 'confirmPayoutPage', method: 'POST', path: `/v1/test_helpers/payout_pages/${id}/confirm?livemode=false`, body: { payoutMethod, kyc: fullKyc }, targetId: id };
      }
      case 'createPaymentPage':
        return { kind: 'payPaymentPage', method: 'POST', path: `/v1/test_helpers/payment_pages/${id}/pay?livemode=false`, body: cardBody(testCards.visaCredit), targetId: id, ...(operation.amount !== undefined ? { amount: operation.amount } : {}) };
      case 'payPaymentPage':
        // A partial refund: a second application would still fit in the payment, so only the idempotency keeps it single.
        return { kind: 'refundPayment', method: 'POST', path: '/v1/refunds?livemode=false', body: { paymentPageId: id, amount: Math.floor((operation.amount ?? 2) / 2) }, targetId: id };
      case 'createSubscription':
        return { kind: 'paySubscription', method: 'POST', path: `/v1/test_helpers/payment_pages/${id}/pay?livemode=false`, body: cardBody(testCards.visaCredit), targetId: id };
      case 'paySubscription':
        // `id` is the subscription's here.
        return { kind: 'renewSubscription', method: 'POST', path: `/v1/test_helpers/subscriptions/${id}/renew?livemode=false`, targetId: id };
      default:
        return undefined;
    }
  };

  return { newOperation, newBankPayout, followUpOf };
}
