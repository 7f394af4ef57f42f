import { Type, type Static } from 'typebox';
import { disputeStatuses } from '../../db/schema/disputes.ts';

export const DisputeStatusSchema = Type.Enum(disputeStatuses, {
  description: 'NEEDS_RESPONSE (answer with evidence by `evidenceDueBy`, at the processor), UNDER_REVIEW (evidence given, the issuer decides), WON (the money came back), LOST (final).',
});

export const DisputeSchema = Type.Object(
  {
    id: Type.String({ description: 'dp_…' }),
    paymentPageId: Type.Union([Type.String(), Type.Null()], { description: 'The payment page the disputed payment paid; null for a renewal charged without a page.' }),
    paymentId: Type.String({ description: 'pay_… (the disputed card payment; its fraud report, if any, has this id).' }),
    amount: Type.Integer({ description: 'Disputed amount in minor units; taken from the available balance in `currency` when the dispute opens, returned when it is won.' }),
    currency: Type.String({ description: "The payment's currency." }),
    reason: Type.String({ description: "The card network's dispute category, upper snake case: FRAUDULENT, PRODUCT_NOT_RECEIVED, DUPLICATE, SUBSCRIPTION_CANCELED, GENERAL, …" }),
    status: DisputeStatusSchema,
    evidenceDueBy: Type.Union([Type.Integer(), Type.Null()], { description: 'Epoch milliseconds: last moment to submit evidence; null when the processor gives none.' }),
    createdAt: Type.Integer({ description: 'Epoch milliseconds.' }),
    livemode: Type.Boolean(),
  },
  { $id: 'Dispute', additionalProperties: false },
);
export type DisputeView = Static<typeof DisputeSchema>;

export const DisputeIdParams = Type.Object({ disputeId: Type.String({ maxLength: 100 }) }, { additionalProperties: false });

export const DisputeListQuery = Type.Object(
  {
    paymentPageId: Type.Optional(Type.String({ minLength: 1, maxLength: 100, description: 'Only the disputes of this payment page (page_…); an unknown page answers 404.' })),
    limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 100, default: 20, description: 'Page size, 1–100 (default 20).' })),
    startingAfter: Type.Optional(Type.String({ minLength: 1, maxLength: 512, description: 'The `nextCursor` of the previous page, or the id of the last dispute seen.' })),
    livemode: Type.Optional(Type.Boolean({ description: 'Only this mode; omitted: both modes.' })),
  },
  { additionalProperties: false },
);
export type DisputeListInput = Static<typeof DisputeListQuery>;

export const DisputeList = Type.Object({
  disputes: Type.Array(DisputeSchema, { description: 'Newest first.' }),
  hasMore: Type.Boolean(),
  nextCursor: Type.Optional(Type.String({ description: 'Pass as `startingAfter` for the next page; present when `hasMore`.' })),
});

export const DisputeCloseBody = Type.Object(
  { outcome: Type.Enum(['WON', 'LOST'] as const, { description: 'WON returns the disputed amount to the balance; LOST keeps it taken.' }) },
  { additionalProperties: false },
);
export type DisputeCloseInput = Static<typeof DisputeCloseBody>;
