import { Type, type Static } from 'typebox';
import { EpochMilliseconds, listPaging } from '../../http/schemas.ts';
import { AddressInput } from '../customers/index.ts';
import { bankAccountTypes, cryptoNetworks, payoutMethodTypes } from './destinations.ts';
import { payoutPageStatuses, payoutPageSubStatuses } from './states.ts';


export const fundingCurrencies = ['USDC', 'USD'] as const;
export const releaseMethods = ['AUTOMATIC', 'MANUAL'] as const;

export const maxPayoutAmount = 100_000_000;
import { maxMetadataEntries, metadataKey } from '../../http/request-rules.ts';

export const PayoutPageCreateBody = Type.Object(
  {
    amount: Type.Integer({
      minimum: 1,
      maximum: maxPayoutAmount,
      'x-rule': `must be an integer between 1 and ${maxPayoutAmount}`,
      description: 'Minor units (hundredths of the currency unit): 100 is 1.00. Between 1 and 100000000.',
    }),
    fundingCurrency: Type.Enum(fundingCurrencies, { description: 'The balance the payout is funded from.' }),
    clientReferenceId: Type.String({ minLength: 1, maxLength: 255, description: 'Your reference; unique per merchant and mode (a UUID is suggested).' }),
    releaseMethod: Type.Enum(releaseMethods, { description: 'MANUAL: you release each payout (POST …/release) once the customer is verified. AUTOMATIC: paid out as soon as the customer is verified.' }),
    customer: Type.Object(
      {
        referenceId: Type.String({ minLength: 1, maxLength: 255, description: 'An unknown referenceId creates the customer (signupAt = now).' }),
        email: Type.String({ maxLength: 254, description: 'Where the page link, the verification code and progress e-mails go.' }),
      },
      { additionalProperties: false },
    ),
    successReturnUrl: Type.Optional(Type.String({ maxLength: 2048, description: 'http(s) URL the customer is sent to after completing the payout.' })),
    failureReturnUrl: Type.Optional(Type.String({ maxLength: 2048, description: 'http(s) URL the customer is sent to after declining (or when the page cannot be completed).' })),
    expiresAt: Type.Optional(EpochMilliseconds({ description: 'Epoch ms; default now + 7 days, at most now + 30 days. Unconfirmed pages expire then.' })),
    metadata: Type.Optional(
      Type.Record(Type.String(), Type.String({ maxLength: 500 }), { maxProperties: maxMetadataEntries, propertyNames: metadataKey, description: 'Up to 20 string pairs; keys 1-40 characters, values up to 500.' }),
    ),
  },
  { additionalProperties: false },
);
export type PayoutPageCreateInput = Static<typeof PayoutPageCreateBody>;

export const PayoutMethodBody = Type.Object(
  {
    type: Type.Enum(payoutMethodTypes),
    accountHolderName: Type.Optional(Type.String({ maxLength: 200, description: 'BANK_TRANSFER' })),
    routingNumber: Type.Optional(Type.String({ maxLength: 20, description: 'BANK_TRANSFER: 9-digit ABA routing number (check digit verified).' })),
    accountNumber: Type.Optional(Type.String({ maxLength: 40, description: 'BANK_TRANSFER: 4-17 digits. Sandbox: ending 0002 is rejected by the rail.' })),
    accountType: Type.Optional(Type.Enum(bankAccountTypes, { description: 'BANK_TRANSFER' })),
    network: Type.Optional(Type.Enum(cryptoNetworks, { description: 'CRYPTO_WALLET' })),
    address: Type.Optional(
      Type.String({ maxLength: 100, description: 'CRYPTO_WALLET: 0x address (EIP-55 checksum when mixed case) or Solana base58. Sandbox: ending "dead" is rejected by the rail.' }),
    ),
  },
  { additionalProperties: false },
);

export const KycBody = Type.Object(
  {
    firstName: Type.Optional(Type.String({ minLength: 1, maxLength: 100 })),
    middleName: Type.Optional(Type.String({ minLength: 1, maxLength: 100 })),
    lastName: Type.Optional(Type.String({ minLength: 1, maxLength: 100 })),
    dateOfBirth: Type.Optional(Type.String({ description: 'YYYY-MM-DD' })),
    phoneNumber: Type.Optional(Type.String({ maxLength: 20 })),
    address: Type.Optional(AddressInput),
  },
  { additionalProperties: false, description: "Completes the customer's identity data (fields already known are kept), as the hosted KYC form does." },
);
export type KycInput = Static<typeof KycBody>;

export const ConfirmBody = Type.Object({ payoutMethod: PayoutMethodBody, kyc: Type.Optional(KycBody) }, { additionalProperties: false });
export type ConfirmInput = Static<typeof ConfirmBody>;

export const PayoutMethodResponse = Type.Union(
  [
    Type.Object({ type: Type.Literal('BANK_TRANSFER'), last4: Type.String(), routingNumber: Type.String() }),
    Type.Object({ type: Type.Literal('CRYPTO_WALLET'), network: Type.Enum(cryptoNetworks), address: Type.String({ description: 'Masked: 0x5aAe...eAed' }) }),
  ],
  { description: 'The chosen method, masked. Present once the customer confirmed.' },
);

export const PayoutPage = Type.Object(
  {
    id: Type.String({ description: 'payout_page_…' }),
    status: Type.Enum(payoutPageStatuses),
    'sub-status': Type.Enum(payoutPageSubStatuses),
    statusReason: Type.Optional(Type.String({ description: 'Why the page is where it is when that is not obvious (no live payout rail, rail rejection).' })),
    amount: Type.Integer(),
    fundingCurrency: Type.Enum(fundingCurrencies),
    clientReferenceId: Type.String(),
    releaseMethod: Type.Enum(releaseMethods),
    customer: Type.Object({ id: Type.String(), referenceId: Type.String(), email: Type.Optional(Type.String()) }),
    merchant: Type.Object({ id: Type.String(), livemode: Type.Boolean() }),
    url: Type.String({ description: '{PUBLIC_URL}/payout-page/<id>' }),
    successReturnUrl: Type.Optional(Type.String()),
    failureReturnUrl: Type.Optional(Type.String()),
    customerConfirmedAt: Type.Optional(Type.Integer()),
    lockedAt: Type.Optional(
      Type.Integer({
        description:
          'Epoch ms; present while the hosted page is locked after 10 wrong verification codes (no code is sent or accepted). POST /v1/payout_pages/{payoutPageId}/reissue opens it again.',
      }),
    ),
    payoutMethod: Type.Optional(PayoutMethodResponse),
    payoutDetails: Type.Optional(
      Type.Object(
        {
          transactionHash: Type.String({ description: 'The on-chain transaction hash (EVM: 0x + 64 hex; Solana: the base58 signature). Sandbox: a deterministic hash on no chain.' }),
          explorerUrl: Type.String({ description: 'The transaction on a block explorer of its network (etherscan, polygonscan, basescan, solscan; their testnet explorers in sandbox).' }),
        },
        { description: 'USDC payouts, once paid: where to see the transfer on chain.' },
      ),
    ),
    metadata: Type.Record(Type.String(), Type.String()),
    expiresAt: Type.Integer(),
    createdAt: Type.Integer(),
    updatedAt: Type.Integer(),
  },
  { $id: 'PayoutPage' },
);
export type PayoutPageResponse = Static<typeof PayoutPage>;

export const PayoutPageIdParams = Type.Object({ payoutPageId: Type.String({ maxLength: 100 }) }, { additionalProperties: false });

export const PayoutPageListQuery = Type.Object(
  {
    ...listPaging('payout page'),
    clientReferenceId: Type.Optional(Type.String({ minLength: 1, maxLength: 255, description: 'Only the page with this reference (one per mode).' })),
    customerId: Type.Optional(Type.String({ minLength: 1, maxLength: 100, description: "Only this customer's pages (cus_…)." })),
    status: Type.Optional(Type.Enum(payoutPageStatuses, { description: 'Only pages in this status.' })),
    createdFrom: Type.Optional(EpochMilliseconds({ description: 'Only pages created at or after this time (epoch milliseconds).' })),
    createdTo: Type.Optional(EpochMilliseconds({ description: 'Only pages created at or before this time (epoch milliseconds).' })),
  },
  { additionalProperties: false },
);
export type PayoutPageListInput = Static<typeof PayoutPageListQuery>;

export const PayoutPageList = Type.Object({
  payoutPages: Type.Array(PayoutPage, { description: 'Newest first; each exactly as `GET /v1/payout_pages/{payoutPageId}` answers it.' }),
  hasMore: Type.Boolean(),
  nextCursor: Type.Optional(Type.String({ description: 'Pass as `startingAfter` for the next page; present when `hasMore`.' })),
});
export type PayoutPageListView = Static<typeof PayoutPageList>;
