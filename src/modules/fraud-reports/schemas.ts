import { Type, type Static } from 'typebox';
import { fraudNetworks } from './networks.ts';

export const reportDatePattern = '^\\d{4}-\\d{2}-\\d{2} \\d{2}:\\d{2}:\\d{2}$';

export const FraudReport = Type.Object(
  {
    checkoutPaymentId: Type.String({ description: 'The card payment (pay_…); also the report id and the webhook fraudReportId.' }),
    clientReferenceId: Type.String(),
    fraudAmountUSD: Type.String({ description: 'US dollars with two places, converted from the payment currency with the documented sandbox rate table.' }),
    fraudReason: Type.String(),
    fraudIssueDate: Type.String({ description: 'YYYY-MM-DD hh:mm:ss, UTC' }),
    transactionDate: Type.String({ description: 'YYYY-MM-DD hh:mm:ss, UTC' }),
    issuingBank: Type.String(),
    cardholderName: Type.String(),
    customerEmail: Type.String(),
    cardSchemeType: Type.String({ description: 'DEBIT or CREDIT' }),
    cardNumber: Type.String({ description: 'Masked: 411111******1111' }),
    network: Type.String({ description: 'VISA, MASTERCARD, … (added)' }),
    fraudType: Type.Union([Type.String(), Type.Null()], { description: "The network's own fraud type code (Visa TC40, Mastercard SAFE); null for test helper reports (added)" }),
  },
  { $id: 'FraudReport' },
);
export type FraudReportResponse = Static<typeof FraudReport>;

export const FraudReportListQuery = Type.Object(
  {
    livemode: Type.Optional(Type.Boolean({ description: 'Omitted: both modes.' })),
    'pagination[offset]': Type.Optional(Type.Integer({ minimum: 0, maximum: 1_000_000_000, description: 'Default 0.' })),
    'pagination[limit]': Type.Optional(Type.Integer({ minimum: 1, maximum: 100, description: 'Default 10.' })),
    'filters[checkoutPaymentId]': Type.Optional(Type.String({ minLength: 1, maxLength: 100 })),
    'filters[fraudIssueDateRange][start]': Type.Optional(Type.String({ pattern: reportDatePattern, description: 'YYYY-MM-DD hh:mm:ss (UTC), inclusive' })),
    'filters[fraudIssueDateRange][end]': Type.Optional(Type.String({ pattern: reportDatePattern, description: 'YYYY-MM-DD hh:mm:ss (UTC), inclusive' })),
  },
  { additionalProperties: false },
);
export type FraudReportListInput = Static<typeof FraudReportListQuery>;

export const FraudReportList = Type.Object({
  checkoutFraudReports: Type.Array(FraudReport),
  count: Type.Integer({ description: 'All matches' }),
  hasMore: Type.Boolean({ description: 'offset + returned < count' }),
});

export const FraudReportIdParams = Type.Object({ id: Type.String({ maxLength: 100 }) }, { additionalProperties: false });

export const FraudReportTestBody = Type.Object(
  {
    paymentId: Type.String({ minLength: 1, maxLength: 100, description: 'A successful sandbox card payment (pay_…)' }),
    fraudReason: Type.String({ minLength: 1, maxLength: 500 }),
    fraudAmountUSD: Type.Optional(
      Type.Union([Type.String({ pattern: '^\\d{1,12}(\\.\\d{1,2})?$' }), Type.Number({ minimum: 0 })], {
        description: 'Default: the payment amount converted with the sandbox rate table.',
      }),
    ),
  },
  { additionalProperties: false },
);
export type FraudReportTestInput = Static<typeof FraudReportTestBody>;

export const FraudImportBody = Type.Object(
  {
    network: Type.Enum(fraudNetworks),
    csv: Type.String({ minLength: 1, description: 'The issuer-fraud file in the documented layout of `network` (docs/fraud-reports.md).' }),
    livemode: Type.Optional(Type.Boolean({ description: 'Which payments to match: omitted/true live, false sandbox.' })),
  },
  { additionalProperties: false },
);
export type FraudImportInput = Static<typeof FraudImportBody>;

const ImportedRow = Type.Object({ line: Type.Integer(), checkoutPaymentId: Type.String() });

export const FraudImportResult = Type.Object({
  import: Type.Object({
    id: Type.String({ description: 'fim_…' }),
    network: Type.String(),
    livemode: Type.Boolean(),
    rows: Type.Integer(),
    created: Type.Integer(),
    duplicates: Type.Integer(),
    unmatched: Type.Integer(),
    createdAt: Type.Integer(),
  }),
  createdReports: Type.Array(ImportedRow),
  duplicateRows: Type.Array(ImportedRow),
  unmatchedRows: Type.Array(
    Type.Object({
      line: Type.Integer(),
      reason: Type.String(),
      networkTransactionId: Type.Optional(Type.String()),
      cardNumber: Type.Optional(Type.String({ description: 'Masked' })),
      transactionDate: Type.Optional(Type.String()),
      transactionAmount: Type.Optional(Type.Integer({ description: 'Minor units' })),
      transactionCurrency: Type.Optional(Type.String()),
    }),
  ),
});
export type FraudImportResultResponse = Static<typeof FraudImportResult>;
