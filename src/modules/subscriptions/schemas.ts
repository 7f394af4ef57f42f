import { Type, type Static } from 'typebox';
import { subscriptionStatuses } from '../../db/schema/index.ts';
import { listPaging } from '../../http/schemas.ts';
import { intervals } from './periods.ts';

export const SubscriptionIdParams = Type.Object({ subscriptionId: Type.String({ minLength: 1, maxLength: 100 }) }, { additionalProperties: false });

const epochMs = (description: string) => Type.Integer({ description: `Epoch milliseconds; ${description}` });

export const Invoice = Type.Object(
  {
    id: Type.String({ description: 'inv_…' }),
    status: Type.Literal('PAID'),
    amount: Type.Integer(),
    currency: Type.String(),
    paymentId: Type.String({ description: 'The card payment (pay_…) that paid the period.' }),
    periodStart: epochMs('start of the billed period (inclusive).'),
    periodEnd: epochMs('end of the billed period (exclusive).'),
    paidAt: epochMs('when the payment succeeded.'),
    createdAt: Type.Integer(),
  },
  { additionalProperties: false },
);
export type InvoiceResponse = Static<typeof Invoice>;

export const Subscription = Type.Object(
  {
    id: Type.String({ description: 'sub_…' }),
    status: Type.Enum([...subscriptionStatuses], {
      description: 'ACTIVE: paid for the current period. PAST_DUE: the renewal was declined and is being retried. CANCELED: ended (no more renewals).',
    }),
    merchantId: Type.String(),
    livemode: Type.Boolean(),
    customerId: Type.String(),
    productId: Type.String(),
    pageId: Type.String({ description: 'The payment page whose payment started the subscription.' }),
    interval: Type.Enum([...intervals]),
    intervalCount: Type.Integer({ minimum: 1 }),
    amount: Type.Integer({ description: 'Charged at every renewal, in minor units.' }),
    currency: Type.String(),
    currentPeriodStart: epochMs('inclusive.'),
    currentPeriodEnd: epochMs('exclusive; the renewal runs then.'),
    cancelAtPeriodEnd: Type.Boolean({ description: 'Canceled by the merchant: ends at currentPeriodEnd, with no renewal.' }),
    canceledAt: Type.Optional(epochMs('when the cancellation was requested.')),
    endedAt: Type.Optional(epochMs('when the subscription ended (status CANCELED).')),
    failedRenewalAttempts: Type.Integer({ description: 'Declined renewal attempts for the period now due (0 unless PAST_DUE or canceled for non-payment).' }),
    nextRenewalAttemptAt: Type.Optional(epochMs('when a PAST_DUE subscription is charged again.')),
    lastDeclineReason: Type.Optional(Type.String({ description: 'The decline reason of the last failed renewal attempt.' })),
    renewalPaymentPageId: Type.Optional(
      Type.String({ description: 'PAST_DUE because the card issuer asked for authentication (`lastDeclineReason` authentication_required): the payment page (page_…) where the customer pays the overdue renewal, confirming with 3-D Secure. No off-session retries follow; unpaid when it expires, the subscription is CANCELED.' }),
    ),
    renewalPaymentUrl: Type.Optional(Type.String({ description: 'The hosted page of `renewalPaymentPageId`: send it to the customer.' })),
    latestInvoice: Type.Optional(Invoice),
    createdAt: Type.Integer(),
    updatedAt: Type.Integer(),
  },
  { additionalProperties: false },
);
export type SubscriptionResponse = Static<typeof Subscription>;

export const SubscriptionListQuery = Type.Object(
  {
    ...listPaging('subscription'),
    customerId: Type.Optional(Type.String({ minLength: 1, maxLength: 100, description: "Only this customer's subscriptions (cus_…)." })),
    status: Type.Optional(Type.Enum(subscriptionStatuses, { description: 'Only subscriptions in this status.' })),
  },
  { additionalProperties: false },
);
export type SubscriptionListInput = Static<typeof SubscriptionListQuery>;

export const SubscriptionList = Type.Object({
  subscriptions: Type.Array(Subscription, { description: 'Newest first; each exactly as `GET /v1/subscriptions/{subscriptionId}` answers it.' }),
  hasMore: Type.Boolean(),
  nextCursor: Type.Optional(Type.String({ description: 'Pass as `startingAfter` for the next page; present when `hasMore`.' })),
});
export type SubscriptionListView = Static<typeof SubscriptionList>;
