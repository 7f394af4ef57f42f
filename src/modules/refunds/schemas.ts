import { Type, type Static } from 'typebox';
import { refundReasons, refundStatuses } from '../../db/schema/index.ts';

/** The most one payment page can take (docs/API.md §9), so the most one refund can give back. */
const maxRefundAmount = 100_000_000;

export const RefundReasonSchema = Type.Enum(refundReasons, { description: 'REQUESTED_BY_CUSTOMER, DUPLICATE or FRAUDULENT.' });

export const RefundCreateBody = Type.Object(
  {
    paymentPageId: Type.String({ minLength: 1, maxLength: 100, description: 'page_… of a PAID payment page.' }),
    amount: Type.Optional(
      Type.Integer({ minimum: 1, maximum: maxRefundAmount, description: 'Minor units, at most what is left to refund (the page amount minus `refundedAmount`); default: all of it.' }),
    ),
    reason: Type.Optional(RefundReasonSchema),
  },
  { additionalProperties: false },
);
export type RefundCreateInput = Static<typeof RefundCreateBody>;

export const Refund = Type.Object(
  {
    id: Type.String({ description: 're_…' }),
    paymentPageId: Type.String({ description: 'page_… the refund gives money back on.' }),
    paymentId: Type.String({ description: 'pay_… the successful card payment refunded.' }),
    amount: Type.Integer({ description: 'Minor units.' }),
    currency: Type.String({ description: "The page's currency." }),
    reason: Type.Union([RefundReasonSchema, Type.Null()], { description: 'As given at creation; null when none was.' }),
    status: Type.Enum(refundStatuses, { description: 'PENDING until the card processor settles it, then SUCCEEDED or FAILED.' }),
    failureReason: Type.Optional(Type.String({ description: "The processor's reason, once FAILED." })),
    createdAt: Type.Integer({ description: 'Epoch milliseconds.' }),
    livemode: Type.Boolean(),
  },
  { $id: 'Refund' },
);
export type RefundView = Static<typeof Refund>;

export const RefundListQuery = Type.Object(
  {
    paymentPageId: Type.Optional(Type.String({ minLength: 1, maxLength: 100, description: "Only this page's refunds." })),
    limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 100, default: 20, description: 'Page size, 1–100 (default 20).' })),
    startingAfter: Type.Optional(
      Type.String({ minLength: 1, maxLength: 512, description: 'The `nextCursor` of the previous page (of the same filter), or the id of the last refund seen.' }),
    ),
    livemode: Type.Optional(Type.Boolean({ description: 'Only this mode; omitted: both modes.' })),
  },
  { additionalProperties: false },
);
export type RefundListInput = Static<typeof RefundListQuery>;

export const RefundList = Type.Object({
  refunds: Type.Array(Refund, { description: 'Newest first.' }),
  hasMore: Type.Boolean(),
  nextCursor: Type.Optional(Type.String({ description: 'Pass as `startingAfter` for the next page; present when `hasMore`.' })),
});
export type RefundListView = Static<typeof RefundList>;

export const RefundIdParams = Type.Object({ refundId: Type.String({ maxLength: 100 }) }, { additionalProperties: false });
