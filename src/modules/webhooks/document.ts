import { Type, type TSchema } from 'typebox';
import { eventTypes, type EventType } from '../events/index.ts';
import { PayoutPage, payoutPageStatuses, payoutPageSubStatuses } from '../payout-pages/index.ts';
import { PayinDetails } from '../payments/index.ts';
import { Entitlement } from '../entitlements/index.ts';
import { DisputeSchema } from '../disputes/index.ts';
import { Refund } from '../refunds/index.ts';
import { buildSignedRequest } from './signing.ts';
import { exampleEventData } from './test-events.ts';

/**
 * The OpenAPI 3.1 `webhooks` section: one entry per event type (the closed list in events/record.ts),
 * each the exact request a delivery sends — the Standard Webhooks headers and the body with its
 * `signature` — and a signed example. Each `data` schema is the one its module records (see
 * `recordEvent` calls); none carries an e-mail or other PII.
 */

const objectOf = (properties: Record<string, TSchema>) => Type.Object(properties, { additionalProperties: false });
const clientReferenceIdOrNull = Type.Union([Type.String(), Type.Null()], { description: "The payment page's `clientReferenceId`; null for a renewal charged without a page." });
const customerReference = objectOf({ id: Type.String({ description: 'cus_…' }), referenceId: Type.String() });

const dataSchemas: Record<EventType, TSchema> = {
  PAYOUT_PAGE_UPDATED: Type.Object(
    {
      ...PayoutPage.properties,
      customer: customerReference,
      previousStatus: Type.Enum(payoutPageStatuses),
      previousSubStatus: Type.Enum(payoutPageSubStatuses),
    },
    { description: 'The payout page as `GET /v1/payout_pages/{payoutPageId}` answers it, without the customer’s e-mail, plus the state it left.' },
  ),
  PAYOUT_PAGE_LOCKED: Type.Object(
    { ...PayoutPage.properties, customer: customerReference },
    { description: 'The payout page as `GET /v1/payout_pages/{payoutPageId}` answers it (with `lockedAt`), without the customer’s e-mail.' },
  ),
  PAYOUT_PAGE_REISSUED: Type.Object(
    { ...PayoutPage.properties, customer: customerReference },
    { description: 'The payout page as `GET /v1/payout_pages/{payoutPageId}` answers it (unlocked), without the customer’s e-mail.' },
  ),
  PAYMENT_SUCCEEDED: objectOf({
    pageId: Type.String({ description: 'page_…' }),
    paymentId: Type.String({ description: 'pay_… (also the id of its fraud report, if one comes).' }),
    clientReferenceId: Type.String(),
    amount: Type.Integer({ description: 'Minor units.' }),
    currency: Type.String(),
    customer: customerReference,
    payinDetails: PayinDetails,
  }),
  PAYMENT_EXPIRED: objectOf({ pageId: Type.String({ description: 'page_…' }), clientReferenceId: Type.String() }),
  FRAUD_REPORTED: objectOf({
    pageId: Type.String({ description: 'The original payment page.' }),
    clientReferenceId: Type.String({ description: 'Reference given at payment creation.' }),
    fraudReportId: Type.String({ description: 'Id of the fraud report; usable as `:id` in GET /v1/fraud_reports/:id.' }),
    fraudReason: Type.String({ description: 'Reason given by issuer or network.' }),
  }),
  ENTITLEMENT_CREATED: Entitlement,
  PAYMENT_REFUNDED: Type.Object({ ...Refund.properties, clientReferenceId: clientReferenceIdOrNull }, { additionalProperties: false }),
  REFUND_FAILED: Type.Object({ ...Refund.properties, clientReferenceId: clientReferenceIdOrNull }, { additionalProperties: false }),
  DISPUTE_CREATED: Type.Object({ ...DisputeSchema.properties, clientReferenceId: clientReferenceIdOrNull }, { additionalProperties: false }),
  DISPUTE_CLOSED: Type.Object({ ...DisputeSchema.properties, clientReferenceId: clientReferenceIdOrNull }, { additionalProperties: false }),
  CUSTOMER_ERASED: objectOf({
    id: Type.String({ description: 'cus_…' }),
    referenceId: Type.String(),
    erasedAt: Type.Integer({ description: 'When the customer was erased (epoch milliseconds).' }),
  }),
};

const summaries: Record<EventType, string> = {
  PAYOUT_PAGE_UPDATED: "A payout page's status or sub-status changed",
  PAYOUT_PAGE_LOCKED: 'A hosted payout page was locked after 10 wrong verification codes (reissue it to open it again)',
  PAYOUT_PAGE_REISSUED: 'A locked payout page was reissued (POST /v1/payout_pages/{payoutPageId}/reissue or the dashboard)',
  PAYMENT_SUCCEEDED: 'A payment page was paid',
  PAYMENT_EXPIRED: 'A payment page expired (by itself or through the expire operation)',
  FRAUD_REPORTED: 'A card issuer or network reported a payment as fraud (delivered once the operator enabled it for you)',
  ENTITLEMENT_CREATED: 'A subscription period was paid and its entitlement created',
  PAYMENT_REFUNDED: "A refund of a payment page's payment succeeded",
  REFUND_FAILED: 'A refund failed (its money is back in the balance)',
  DISPUTE_CREATED: 'A cardholder disputed a card payment (the amount left the available balance)',
  DISPUTE_CLOSED: 'A dispute ended WON (the amount came back) or LOST',
  CUSTOMER_ERASED: "A customer's personal data was erased (POST /v1/customers/{customerId}/erase); delete your copies",
};

/** The whole body of a delivery of `type`: the event and its `signature`. */
export function webhookBodySchema(type: EventType): TSchema {
  return Type.Object(
    {
      id: Type.String({ description: 'evt_… (also the `webhook-id` header); the same on every retry and redelivery.' }),
      type: Type.Literal(type),
      createdAt: Type.Integer({ description: 'Epoch milliseconds.' }),
      livemode: Type.Boolean(),
      data: dataSchemas[type],
      signature: Type.String({ description: 'Base64 HMAC-SHA256, keyed with the secret’s bytes, of the RFC 8785 canonical JSON of this object without `signature`.' }),
    },
    { additionalProperties: false },
  );
}

/** The fixed values of the examples (ids of the test-event form, which no real object has). */
export const exampleWebhookSecret = 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw';
const exampleContext = { merchantId: `mer_test_${'0'.repeat(31)}`, livemode: false, publicUrl: 'http://localhost:4000', now: new Date(Date.UTC(2026, 0, 1)) };
const exampleTimestampSeconds = Math.floor(exampleContext.now.getTime() / 1000) + 1;

/** A signed example delivery of `type`: its headers and its body, exactly as sent. */
export function exampleDelivery(type: EventType): { headers: Record<string, string>; body: Record<string, unknown> } {
  const event = {
    id: `evt_test_${'0'.repeat(32)}${eventTypes.indexOf(type).toString(36).padStart(4, '0')}`,
    type,
    createdAt: exampleContext.now.getTime(),
    livemode: exampleContext.livemode,
    data: exampleEventData(type, exampleContext),
  };
  const signed = buildSignedRequest(event, { bodySecret: exampleWebhookSecret, headerSecrets: [exampleWebhookSecret], timestampSeconds: exampleTimestampSeconds });
  return { headers: signed.headers, body: JSON.parse(signed.body) as Record<string, unknown> };
}

const headerParameters = [
  { name: 'webhook-id', description: 'The event id (`evt_…`): the same on every retry and redelivery; use it to ignore repeats.', schema: { type: 'string' } },
  { name: 'webhook-timestamp', description: 'Epoch seconds when this attempt was sent; refuse it when more than 5 minutes from your clock.', schema: { type: 'string', pattern: '^[0-9]+$' } },
  {
    name: 'webhook-signature',
    description: 'Standard Webhooks: space-separated `v1,<base64 HMAC-SHA256 of "<webhook-id>.<webhook-timestamp>.<raw body>">`, one per active secret (two during a rotation).',
    schema: { type: 'string', pattern: '^v1,[A-Za-z0-9+/=]+( v1,[A-Za-z0-9+/=]+)*$' },
  },
];

const receiverAnswers = {
  '200': { description: 'Delivered: any 2xx answer within 15 seconds (redirects are not followed; anything else is retried on the schedule).' },
  '410': { description: 'Gone: the endpoint is disabled at once, without retries, and the account address gets an e-mail.' },
  '429': {
    description: 'Retried; a `Retry-After` header (seconds or an HTTP date) can make the next wait longer than the schedule, up to 10 hours.',
    headers: { 'Retry-After': { description: 'Seconds or an HTTP date.', schema: { type: 'string' } } },
  },
  '503': {
    description: 'Retried, honouring `Retry-After` as for 429.',
    headers: { 'Retry-After': { description: 'Seconds or an HTTP date.', schema: { type: 'string' } } },
  },
};

function camelCase(type: EventType): string {
  return type.toLowerCase().replace(/_([a-z])/g, (_match, letter: string) => letter.toUpperCase());
}

/** The `webhooks` object of the OpenAPI document: one path item per event type. */
export function webhookEventsDocument(): Record<string, unknown> {
  const webhooks: Record<string, unknown> = {};
  for (const type of eventTypes) {
    const example = exampleDelivery(type);
    webhooks[type] = {
      post: {
        operationId: `webhookEvents_${camelCase(type)}`,
        summary: summaries[type],
        description: `Sent to every enabled endpoint of the event's merchant and mode that subscribes to \`${type}\` (at least once; order not guaranteed). Verify both signatures with your endpoint's secret.`,
        tags: ['Webhook events'],
        security: [],
        parameters: headerParameters.map((parameter) => ({ ...parameter, in: 'header', required: true, example: example.headers[parameter.name] })),
        requestBody: {
          required: true,
          content: { 'application/json': { schema: JSON.parse(JSON.stringify(webhookBodySchema(type))) as unknown, example: example.body } },
        },
        responses: receiverAnswers,
      },
    };
  }
  return webhooks;
}
