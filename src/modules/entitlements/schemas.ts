import { Type, type Static } from 'typebox';

export const maxPageSize = 100;

/** Exactly the fields of an entitlement (docs/guides/entitlements.md, Entitlements); optional ones are omitted when unset. */
export const Entitlement = Type.Object(
  {
    id: Type.String({ description: 'ent_…' }),
    createdAt: Type.Integer({ description: 'Epoch milliseconds.' }),
    updatedAt: Type.Optional(Type.Integer({ description: 'Epoch milliseconds; present once the entitlement was changed (a sandbox renewal that ends its period early).' })),
    subscriptionId: Type.String(),
    productId: Type.String(),
    invoiceId: Type.Optional(Type.String()),
    livemode: Type.Boolean(),
    customerId: Type.String(),
    merchantId: Type.String(),
    startPeriod: Type.Integer({ description: 'Epoch milliseconds, inclusive.' }),
    endPeriod: Type.Integer({ description: 'Epoch milliseconds, exclusive.' }),
    idempotencyKey: Type.String({ description: '`<subscriptionId>-<startPeriod>-<endPeriod>`; unique.' }),
  },
  { additionalProperties: false },
);
export type EntitlementResponse = Static<typeof Entitlement>;

export const EntitlementsQuery = Type.Object(
  {
    subscriptionId: Type.Optional(Type.String({ minLength: 1, maxLength: 100, description: 'Only entitlements of this subscription.' })),
    customerId: Type.Optional(Type.String({ minLength: 1, maxLength: 100, description: 'Only entitlements of this customer.' })),
    isActive: Type.Optional(Type.Boolean({ description: 'true: startPeriod ≤ now < endPeriod; false: the others.' })),
    limit: Type.Optional(Type.Integer({ minimum: 1, maximum: maxPageSize, default: maxPageSize, description: 'Page size, 1-100 (default 100).' })),
    cursorToken: Type.Optional(Type.String({ minLength: 1, maxLength: 1000, description: '`nextPageToken` of the previous page; valid only with the same filters and sort.' })),
    sort: Type.Optional(Type.Enum(['asc', 'desc'], { default: 'asc', description: 'By creation time (then id); default asc.' })),
    livemode: Type.Optional(Type.Boolean({ description: 'Only this mode; omitted means both.' })),
  },
  { additionalProperties: false },
);
export type EntitlementsQueryInput = Static<typeof EntitlementsQuery>;

/** The one success body without the envelope (docs/guides/entitlements.md, `GET /v1/entitlements`). */
export const EntitlementsPage = Type.Object(
  {
    entitlements: Type.Array(Entitlement),
    hasMore: Type.Boolean(),
    nextPageToken: Type.Optional(Type.String({ description: 'Present only when hasMore is true.' })),
  },
  { additionalProperties: false },
);
export type EntitlementsPageResponse = Static<typeof EntitlementsPage>;
