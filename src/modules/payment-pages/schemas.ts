import { Type, type Static } from 'typebox';
import { EpochMilliseconds, listPaging } from '../../http/schemas.ts';
import { paymentPageStatuses, subscriptionIntervals } from '../../db/schema/index.ts';

export const paymentCurrencies = ['USD', 'EUR', 'GBP'] as const;
export type PaymentCurrency = (typeof paymentCurrencies)[number];

export const maxAmount = 100_000_000;
import { maxMetadataEntries, metadataKey } from '../../http/request-rules.ts';
import { PayinDetails } from '../payments/index.ts';

export const maxLineItems = 100;

const LineItem = Type.Object(
  {
    name: Type.String({ minLength: 1, maxLength: 200, description: 'What the line is for (1–200 characters).' }),
    quantity: Type.Integer({ minimum: 1, maximum: 10_000, description: '1–10,000.' }),
    unitAmount: Type.Integer({ minimum: 0, maximum: maxAmount, description: 'Price of one unit in minor units, 0–100,000,000.' }),
  },
  { additionalProperties: false },
);

const Url = (description: string) => Type.String({ minLength: 1, maxLength: 2048, description });

export const PaymentPageCreateBody = Type.Object(
  {
    amount: Type.Integer({ minimum: 1, maximum: maxAmount, description: 'Minor units (hundredths): 100 is one unit of the currency. 1–100,000,000.' }),
    currency: Type.Enum(paymentCurrencies, { description: 'USD, EUR or GBP.' }),
    clientReferenceId: Type.String({ minLength: 1, maxLength: 255, description: 'Your reference; unique per merchant and mode (a UUID is suggested).' }),
    customer: Type.Object(
      {
        referenceId: Type.String({ minLength: 1, maxLength: 255, description: 'Your id for the customer; an unknown one creates the customer.' }),
        email: Type.String({ minLength: 1, maxLength: 254 }),
      },
      { additionalProperties: false },
    ),
    successReturnUrl: Type.Optional(Url('http(s) URL the customer is sent to after paying.')),
    failureReturnUrl: Type.Optional(Url('http(s) URL the customer is sent to after deciding not to pay.')),
    expiresAt: Type.Optional(EpochMilliseconds({ description: 'Epoch milliseconds; default now + 24 h, at most now + 30 days.' })),
    metadata: Type.Optional(
      Type.Record(Type.String(), Type.String({ maxLength: 500 }), {
        maxProperties: maxMetadataEntries,
        propertyNames: metadataKey,
        description: 'Up to 20 string pairs (keys 1–40 characters, values up to 500).',
      }),
    ),
    description: Type.Optional(Type.String({ minLength: 1, maxLength: 500, description: 'What is being paid for, shown to the customer on the page and in the receipt e-mail (1–500 characters).' })),
    lineItems: Type.Optional(
      Type.Array(LineItem, {
        minItems: 1,
        maxItems: maxLineItems,
        description: 'The itemised amount, shown on the page and in the receipt: 1–100 lines whose `quantity × unitAmount` sum to exactly `amount` (else 400 WRONG_PARAMETER naming `lineItems`).',
      }),
    ),
    subscription: Type.Optional(
      Type.Object(
        {
          productId: Type.String({ minLength: 1, maxLength: 255 }),
          interval: Type.Enum(subscriptionIntervals),
          intervalCount: Type.Optional(Type.Integer({ minimum: 1, maximum: 12, description: 'Default 1.' })),
        },
        { additionalProperties: false, description: 'Makes the payment the first period of a subscription; the card is saved for renewals.' },
      ),
    ),
  },
  { additionalProperties: false },
);
export type PaymentPageCreateInput = Static<typeof PaymentPageCreateBody>;

export { PayinDetails, type PayinDetailsResponse } from '../payments/index.ts';

export const PaymentPage = Type.Object(
  {
    id: Type.String({ description: 'page_…' }),
    status: Type.Enum(paymentPageStatuses),
    clientReferenceId: Type.String(),
    customer: Type.Object({ id: Type.String(), referenceId: Type.String(), email: Type.String() }),
    amount: Type.Integer(),
    currency: Type.String(),
    url: Type.String({ description: 'Hosted checkout: {publicUrl}/payment-page/<id>' }),
    expiresAt: Type.Integer({ description: 'Epoch milliseconds' }),
    createdAt: Type.Integer(),
    paidAt: Type.Optional(Type.Integer({ description: 'Present once PAID' })),
    expiredAt: Type.Optional(Type.Integer({ description: 'Present once EXPIRED' })),
    livemode: Type.Boolean(),
    paymentId: Type.Optional(Type.String({ description: 'pay_… of the successful card payment, once PAID' })),
    subscriptionId: Type.Optional(Type.String({ description: 'sub_… when the payment created a subscription' })),
    payinDetails: Type.Optional(PayinDetails),
    refundedAmount: Type.Integer({ description: 'Minor units given back by refunds (every refund not FAILED, pending ones included); 0 until refunded. The page stays PAID.' }),
    metadata: Type.Record(Type.String(), Type.String()),
    description: Type.Optional(Type.String({ description: 'Present when the page was created with one.' })),
    lineItems: Type.Optional(Type.Array(LineItem, { description: 'Present when the page was created with them; their sum equals `amount`.' })),
    successReturnUrl: Type.Optional(Type.String()),
    failureReturnUrl: Type.Optional(Type.String()),
    subscription: Type.Optional(
      Type.Object({
        productId: Type.String(),
        interval: Type.Enum(subscriptionIntervals),
        intervalCount: Type.Integer(),
      }),
    ),
  },
  { $id: 'PaymentPage' },
);
export type PaymentPageResponse = Static<typeof PaymentPage>;

export const PageIdParams = Type.Object({ pageId: Type.String({ maxLength: 100 }) }, { additionalProperties: false });

export { CardPaymentBody, type CardPaymentInput } from '../payments/index.ts';

export const PaymentPageListQuery = Type.Object(
  {
    ...listPaging('payment page'),
    clientReferenceId: Type.Optional(Type.String({ minLength: 1, maxLength: 255, description: 'Only the page with this reference (one per mode).' })),
    customerId: Type.Optional(Type.String({ minLength: 1, maxLength: 100, description: "Only this customer's pages (cus_…)." })),
    status: Type.Optional(Type.Enum(paymentPageStatuses, { description: 'Only pages in this status.' })),
    createdFrom: Type.Optional(EpochMilliseconds({ description: 'Only pages created at or after this time (epoch milliseconds).' })),
    createdTo: Type.Optional(EpochMilliseconds({ description: 'Only pages created at or before this time (epoch milliseconds).' })),
  },
  { additionalProperties: false },
);
export type PaymentPageListInput = Static<typeof PaymentPageListQuery>;

export const PaymentPageList = Type.Object({
  paymentPages: Type.Array(PaymentPage, { description: 'Newest first; each exactly as `GET /v1/payment_pages/{pageId}` answers it.' }),
  hasMore: Type.Boolean(),
  nextCursor: Type.Optional(Type.String({ description: 'Pass as `startingAfter` for the next page; present when `hasMore`.' })),
});
export type PaymentPageListView = Static<typeof PaymentPageList>;
