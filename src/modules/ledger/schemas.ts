import { Type, type Static } from 'typebox';
import { fundingCurrencies, ledgerCurrencies, maxPostingAmount } from './postings.ts';

const Currency = Type.Enum(ledgerCurrencies, { description: 'USDC or USD (funding currencies), EUR or GBP (card payments only).' });
const FundingCurrency = Type.Enum(fundingCurrencies, { description: 'Funding currency: USDC or USD.' });

export const Balance = Type.Object(
  {
    currency: Currency,
    livemode: Type.Boolean(),
    available: Type.Integer({ description: 'Minor units (hundredths): funds the merchant holds, free for payout pages (USDC, USD) and refunds. Card payments add to it, refunds take from it.' }),
    reserved: Type.Integer({ description: 'Held by payout pages not paid out yet.' }),
    inFlight: Type.Integer({ description: 'Submitted to the payout rail, not settled yet.' }),
  },
  { $id: 'Balance' },
);
export type BalanceResponse = Static<typeof Balance>;

export const FundBody = Type.Object(
  {
    amount: Type.Integer({ minimum: 1, maximum: maxPostingAmount, description: 'Minor units (hundredths of the currency unit).' }),
    currency: FundingCurrency,
  },
  { additionalProperties: false },
);
export type FundInput = Static<typeof FundBody>;
