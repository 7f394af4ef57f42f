import { Type, type Static } from 'typebox';

/** What a successful card payment shows of the card (docs/API.md §9 `payinDetails`). */
export const PayinDetails = Type.Object({
  amount: Type.Integer(),
  currency: Type.String(),
  type: Type.Literal('CARD'),
  scheme: Type.String({ description: 'VISA, MASTERCARD, AMEX, DISCOVER, JCB, DINERS, UNIONPAY or UNKNOWN' }),
  last4: Type.String(),
  cardType: Type.String({ description: 'CREDIT, DEBIT or PREPAID' }),
  bin: Type.String({ description: 'First six digits of the card number' }),
  issuer: Type.String(),
});
export type PayinDetailsResponse = Static<typeof PayinDetails>;

/** The sandbox card form / test helper body: card data reaches Paysail only in sandbox mode. */
export const CardPaymentBody = Type.Object(
  {
    cardNumber: Type.String({ minLength: 1, maxLength: 40, description: 'Digits (spaces and dashes ignored); Luhn-checked.' }),
    expMonth: Type.Integer({ minimum: 1, maximum: 12 }),
    expYear: Type.Integer({ minimum: 2000, maximum: 2100, description: 'Four digits.' }),
    cvc: Type.String({ minLength: 1, maxLength: 8, description: '3 or 4 digits.' }),
    cardholderName: Type.String({ minLength: 1, maxLength: 200 }),
  },
  { additionalProperties: false },
);
export type CardPaymentInput = Static<typeof CardPaymentBody>;
