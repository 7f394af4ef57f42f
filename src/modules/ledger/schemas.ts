import { Type, type Static } from 'typebox';
import { ledgerCurrencies, maxPostingAmount } from './postings.ts';

const Currency = Type.Enum(ledgerCurrencies, { description: 'Funding currency: USDC or USD.' });

export const Balance = Type.Object(
  {
    currency: Currency,
    livemode: Type.Boolean(),
    available: Type.Integer({ description: 'Minor units (hundredths) the merchant can put on new payout pages.' }),
    reserved: Type.Integer({ description: 'Held by payout pages not paid out yet.' }),
    inFlight: Type.Integer({ description: 'Submitted to the payout rail, not settled yet.' }),
  },
  { $id: 'Balance' },
);
export type BalanceResponse = Static<typeof Balance>;

export const FundBody = Type.Object(
  {
    amount: Type.Integer({ minimum: 1, maximum: maxPostingAmount, description: 'Minor units (hundredths of the currency unit).' }),
    currency: Currency,
  },
  { additionalProperties: false },
);
export type FundInput = Static<typeof FundBody>;
