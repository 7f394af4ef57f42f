import { Type, type Static } from 'typebox';
import { EventSchema, eventTypes } from '../events/index.ts';

export const maxEndpointsPerMode = 16;

const EnabledEvents = Type.Array(Type.Enum([...eventTypes, '*']), {
  minItems: 1,
  maxItems: eventTypes.length,
  uniqueItems: true,
  description: `Event types to deliver (${eventTypes.join(', ')}), or ["*"] for all, including types added later. Default ["*"].`,
});

const Url = Type.String({ minLength: 1, maxLength: 2048, description: 'http or https; https in live mode. Redirects are not followed.' });

export const WebhookEndpointCreateBody = Type.Object(
  {
    url: Url,
    enabledEvents: Type.Optional(EnabledEvents),
    description: Type.Optional(Type.String({ maxLength: 255 })),
  },
  { additionalProperties: false },
);
export type WebhookEndpointCreateInput = Static<typeof WebhookEndpointCreateBody>;

export const WebhookEndpointUpdateBody = Type.Object(
  {
    url: Type.Optional(Url),
    enabledEvents: Type.Optional(EnabledEvents),
    description: Type.Optional(Type.Union([Type.String({ maxLength: 255 }), Type.Null()])),
    status: Type.Optional(
      Type.Union([Type.Literal('ENABLED'), Type.Literal('DISABLED')], { description: 'ENABLED re-enables an endpoint that was disabled (by you, a 410 answer, or 5 days of failures).' }),
    ),
  },
  { additionalProperties: false },
);
export type WebhookEndpointUpdateInput = Static<typeof WebhookEndpointUpdateBody>;

export const RotateSecretBody = Type.Union(
  [
    Type.Object(
      {
        gracePeriodSeconds: Type.Optional(
          Type.Integer({ minimum: 0, maximum: 604_800, description: 'How long the previous secret keeps signing as well (default 86400 = 24 h; 0 = stop at once; at most 7 days).' }),
        ),
      },
      { additionalProperties: false },
    ),
    Type.Null(),
  ],
  { description: 'Optional.' },
);

const endpointFields = {
  id: Type.String({ description: 'we_…' }),
  url: Type.String(),
  description: Type.Optional(Type.String()),
  enabledEvents: Type.Array(Type.String()),
  livemode: Type.Boolean(),
  status: Type.Union([Type.Literal('ENABLED'), Type.Literal('DISABLED')]),
  disabledReason: Type.Optional(
    Type.Union([Type.Literal('GONE'), Type.Literal('FAILING'), Type.Literal('MANUAL')], {
      description: 'GONE: the endpoint answered 410. FAILING: every attempt failed for 5 days. MANUAL: disabled through the API.',
    }),
  ),
  failingSince: Type.Optional(Type.Integer({ description: 'Epoch ms of the first failed attempt since the last success.' })),
  previousSecretExpiresAt: Type.Optional(Type.Integer({ description: 'Until then the previous secret signs too (after a rotation).' })),
  createdAt: Type.Integer(),
  updatedAt: Type.Integer(),
};

export const WebhookEndpoint = Type.Object(endpointFields, { $id: 'WebhookEndpoint' });
export type WebhookEndpointView = Static<typeof WebhookEndpoint>;

export const WebhookEndpointWithSecret = Type.Object(
  { ...endpointFields, secret: Type.String({ description: 'whsec_…: shown only on create and rotate. Keep it secret.' }) },
  { $id: 'WebhookEndpointWithSecret' },
);
export type WebhookEndpointWithSecretView = Static<typeof WebhookEndpointWithSecret>;

export const WebhookEndpointIdParams = Type.Object({ endpointId: Type.String({ maxLength: 100 }) }, { additionalProperties: false });

export const DeliveryStatus = Type.Union([Type.Literal('PENDING'), Type.Literal('SUCCEEDED'), Type.Literal('FAILED')]);

export const DeliveryAttempt = Type.Object({
  number: Type.Integer({ description: '1, 2, … over the life of the delivery (redeliveries continue the count).' }),
  attemptedAt: Type.Integer(),
  url: Type.String(),
  outcome: Type.Union([Type.Literal('SUCCEEDED'), Type.Literal('FAILED')]),
  statusCode: Type.Union([Type.Integer(), Type.Null()], { description: 'null when no answer arrived (timeout, refused, blocked).' }),
  latencyMs: Type.Integer(),
  responseBody: Type.Union([Type.String(), Type.Null()], { description: 'The first 1 KiB of the answer.' }),
  error: Type.Union([Type.String(), Type.Null()]),
});

export const WebhookDelivery = Type.Object(
  {
    id: Type.String({ description: 'whd_…' }),
    eventId: Type.String(),
    endpointId: Type.String(),
    eventType: Type.String(),
    livemode: Type.Boolean(),
    status: DeliveryStatus,
    attemptCount: Type.Integer(),
    nextAttemptAt: Type.Union([Type.Integer(), Type.Null()]),
    lastAttemptAt: Type.Union([Type.Integer(), Type.Null()]),
    lastStatusCode: Type.Union([Type.Integer(), Type.Null()]),
    lastError: Type.Union([Type.String(), Type.Null()]),
    createdAt: Type.Integer(),
    updatedAt: Type.Integer(),
    completedAt: Type.Union([Type.Integer(), Type.Null()]),
    attempts: Type.Array(DeliveryAttempt, { description: 'Oldest first.' }),
  },
  { $id: 'WebhookDelivery' },
);
export type WebhookDeliveryView = Static<typeof WebhookDelivery>;

export const DeliveryListQuery = Type.Object(
  {
    eventId: Type.Optional(Type.String({ maxLength: 100 })),
    endpointId: Type.Optional(Type.String({ maxLength: 100 })),
    status: Type.Optional(DeliveryStatus),
    livemode: Type.Optional(Type.Boolean({ description: 'Only this mode; omitted: both modes.' })),
    limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 100, default: 20 })),
    startingAfter: Type.Optional(Type.String({ minLength: 1, maxLength: 512, description: 'The `nextCursor` of the previous page, or the id of the last delivery seen.' })),
  },
  { additionalProperties: false },
);
export type DeliveryListInput = Static<typeof DeliveryListQuery>;

export const DeliveryIdParams = Type.Object({ deliveryId: Type.String({ maxLength: 100 }) }, { additionalProperties: false });

export const RedeliverBody = Type.Union(
  [Type.Object({ endpointId: Type.Optional(Type.String({ maxLength: 100, description: 'Only this endpoint; default every enabled endpoint that subscribes to the event.' })) }, { additionalProperties: false }), Type.Null()],
  { description: 'Optional.' },
);

export const SendTestEventBody = Type.Object(
  {
    eventType: Type.Enum(eventTypes, { description: `The type of the example event: one the endpoint receives (${eventTypes.join(', ')}).` }),
  },
  { additionalProperties: false },
);
export type SendTestEventInput = Static<typeof SendTestEventBody>;

/** `event`: the example event (`evt_test_…`); `delivery`: its one delivery, PENDING with no attempt yet. */
export const TestEventResult = Type.Object({ event: EventSchema, delivery: WebhookDelivery });
