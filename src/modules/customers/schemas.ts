import { Type, type Static } from 'typebox';
import { EpochMilliseconds, listPaging } from '../../http/schemas.ts';
import { kycStatuses } from '../../db/schema/index.ts';
import { paymentMethods, payoutMethods } from './rules.ts';

const text = (max: number, description?: string) => Type.String({ minLength: 1, maxLength: max, ...(description ? { description } : {}) });

export const AddressInput = Type.Object(
  {
    line1: Type.Optional(text(255)),
    line2: Type.Optional(text(255)),
    city: Type.Optional(text(255)),
    state: Type.Optional(text(255, 'USPS code when country is US')),
    postalCode: Type.Optional(text(255, 'ZIP or ZIP+4 when country is US')),
    country: Type.Optional(
      Type.String({ pattern: '^[A-Za-z]{2}$', 'x-rule': 'must be an ISO 3166-1 alpha-2 country code (for example US)', description: 'ISO 3166-1 alpha-2 (any case; stored upper case).' }),
    ),
  },
  { additionalProperties: false },
);

const PaymentMethods = Type.Array(Type.Union(paymentMethods.map((method) => Type.Literal(method))), {
  uniqueItems: true,
  minItems: 1,
  maxItems: paymentMethods.length,
  description: 'Distinct values of CARD, BANK_TRANSFER, CRYPTO. Immutable once set.',
});

const identityFields = {
  firstName: Type.Optional(text(100)),
  middleName: Type.Optional(text(100)),
  lastName: Type.Optional(text(100)),
  dateOfBirth: Type.Optional(Type.String({ pattern: '^[0-9]{4}-[0-9]{2}-[0-9]{2}$', 'x-rule': 'must be a date in the form YYYY-MM-DD', description: 'YYYY-MM-DD, a real past date, age ≤ 130' })),
  phoneNumber: Type.Optional(Type.String({ maxLength: 20, description: 'E.164 or US national form; stored normalised to E.164' })),
  address: Type.Optional(AddressInput),
};

export const CustomerCreateBody = Type.Object(
  {
    referenceId: text(255, "The merchant's own identifier for the user; unique per merchant and mode."),
    signupAt: EpochMilliseconds({ description: 'Epoch milliseconds, UTC; not later than now + 24 h.' }),
    email: Type.Optional(Type.String({ maxLength: 254 })),
    supportedPaymentMethods: Type.Optional(PaymentMethods),
    ...identityFields,
  },
  { additionalProperties: false },
);
export type CustomerCreateInput = Static<typeof CustomerCreateBody>;

/**
 * The update accepts email, address (merged field by field) and supportedPaymentMethods (only while
 * unset). The other customer fields are listed so that sending one answers IMMUTABLE_FIELD rather
 * than "unknown field".
 */
export const CustomerUpdateBody = Type.Object(
  {
    email: Type.Optional(Type.String({ maxLength: 254 })),
    address: Type.Optional(AddressInput),
    supportedPaymentMethods: Type.Optional(PaymentMethods),
    referenceId: Type.Optional(Type.Unknown({ description: 'Immutable: answers IMMUTABLE_FIELD.' })),
    signupAt: Type.Optional(Type.Unknown({ description: 'Immutable: answers IMMUTABLE_FIELD.' })),
    firstName: Type.Optional(Type.Unknown({ description: 'Immutable: answers IMMUTABLE_FIELD.' })),
    middleName: Type.Optional(Type.Unknown({ description: 'Immutable: answers IMMUTABLE_FIELD.' })),
    lastName: Type.Optional(Type.Unknown({ description: 'Immutable: answers IMMUTABLE_FIELD.' })),
    dateOfBirth: Type.Optional(Type.Unknown({ description: 'Immutable: answers IMMUTABLE_FIELD.' })),
    phoneNumber: Type.Optional(Type.Unknown({ description: 'Immutable: answers IMMUTABLE_FIELD.' })),
    supportedPayoutMethods: Type.Optional(Type.Unknown({ description: 'Set by an administrator only: answers IMMUTABLE_FIELD.' })),
    id: Type.Optional(Type.Unknown({ description: 'Set by the service: answers IMMUTABLE_FIELD.' })),
    merchantId: Type.Optional(Type.Unknown({ description: 'Set by the service: answers IMMUTABLE_FIELD.' })),
    livemode: Type.Optional(Type.Unknown({ description: 'Set by the service: answers IMMUTABLE_FIELD.' })),
    kycStatus: Type.Optional(Type.Unknown({ description: 'Set by the service: answers IMMUTABLE_FIELD.' })),
    createdAt: Type.Optional(Type.Unknown({ description: 'Set by the service: answers IMMUTABLE_FIELD.' })),
    updatedAt: Type.Optional(Type.Unknown({ description: 'Set by the service: answers IMMUTABLE_FIELD.' })),
  },
  { additionalProperties: false },
);
export type CustomerUpdateInput = Static<typeof CustomerUpdateBody>;

const Jwe = Type.String({ description: 'JWE compact serialization (alg dir, enc A256GCM, kid = merchant PII key id)' });

export const Customer = Type.Object(
  {
    id: Type.String({ description: 'cus_…' }),
    referenceId: Type.String(),
    signupAt: Type.Integer(),
    merchantId: Type.String(),
    livemode: Type.Boolean(),
    email: Type.Optional(Type.String()),
    supportedPaymentMethods: Type.Optional(Type.Array(Type.String())),
    supportedPayoutMethods: Type.Optional(Type.Array(Type.Union(payoutMethods.map((method) => Type.Literal(method))))),
    firstName: Type.Optional(Jwe),
    middleName: Type.Optional(Jwe),
    lastName: Type.Optional(Jwe),
    dateOfBirth: Type.Optional(Jwe),
    phoneNumber: Type.Optional(Jwe),
    address: Type.Optional(
      Type.Object({
        line1: Type.Optional(Jwe),
        line2: Type.Optional(Jwe),
        city: Type.Optional(Jwe),
        state: Type.Optional(Jwe),
        postalCode: Type.Optional(Jwe),
        country: Type.Optional(Jwe),
      }),
    ),
    kycStatus: Type.Union([Type.Literal('NOT_STARTED'), Type.Literal('PENDING'), Type.Literal('APPROVED'), Type.Literal('REJECTED')]),
    kycReason: Type.Optional(
      Type.String({ description: 'Why KYC is in review (PENDING) or was rejected; never personal data. Absent otherwise.' }),
    ),
    createdAt: Type.Integer(),
    updatedAt: Type.Integer(),
  },
  { $id: 'Customer' },
);
export type CustomerResponse = Static<typeof Customer>;

/** What remains of an erased customer (`POST /v1/customers/{customerId}/erase`): ids and dates, no personal data. */
export const ErasedCustomer = Type.Object(
  {
    id: Type.String({ description: 'cus_…' }),
    referenceId: Type.String(),
    merchantId: Type.String(),
    livemode: Type.Boolean(),
    erasedAt: Type.Integer({ description: 'When the customer was erased (epoch milliseconds).' }),
    createdAt: Type.Integer(),
  },
  { $id: 'ErasedCustomer', additionalProperties: false },
);
export type ErasedCustomerResponse = Static<typeof ErasedCustomer>;

/** A customer as reads and lists answer it: the customer, or what remains once erased (it has `erasedAt`). */
export const CustomerOrErased = Type.Union([Customer, ErasedCustomer]);
export type CustomerOrErasedResponse = CustomerResponse | ErasedCustomerResponse;

export const CustomerIdParams = Type.Object({ customerId: Type.String({ maxLength: 100 }) }, { additionalProperties: false });

export const CustomerListQuery = Type.Object(
  {
    ...listPaging('customer'),
    referenceId: Type.Optional(Type.String({ minLength: 1, maxLength: 255, description: 'Only the customer with this reference (one per mode).' })),
    email: Type.Optional(
      Type.String({
        minLength: 3,
        maxLength: 254,
        description:
          'Only customers with exactly this e-mail address (surrounding spaces ignored, case-sensitive, as stored). Matched through a keyed hash: the plain address is never stored in a searchable form.',
      }),
    ),
    kycStatus: Type.Optional(Type.Enum(kycStatuses, { description: 'Only customers with this KYC status.' })),
    createdFrom: Type.Optional(EpochMilliseconds({ description: 'Only customers created at or after this time (epoch milliseconds).' })),
    createdTo: Type.Optional(EpochMilliseconds({ description: 'Only customers created at or before this time (epoch milliseconds).' })),
  },
  { additionalProperties: false },
);
export type CustomerListInput = Static<typeof CustomerListQuery>;

export const CustomerList = Type.Object({
  customers: Type.Array(CustomerOrErased, { description: 'Newest first; each exactly as `GET /v1/customers/{customerId}` answers it (an erased customer as its tombstone).' }),
  hasMore: Type.Boolean(),
  nextCursor: Type.Optional(Type.String({ description: 'Pass as `startingAfter` for the next page; present when `hasMore`.' })),
});
export type CustomerListView = Static<typeof CustomerList>;
