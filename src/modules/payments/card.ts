import { wrongParameter } from '../../http/errors.ts';
import { isCardExpired, isLuhnValid, normalizeCardNumber } from '../card-processor/cards.ts';
import type { PaymentRow } from './repository.ts';
import type { CardPaymentInput, PayinDetailsResponse } from './schemas.ts';

/** A card typed into the sandbox card form (or the sandbox test helper), checked and normalized. */
export interface ValidatedCard {
  number: string;
  expMonth: number;
  expYear: number;
  cvc: string;
  cardholderName: string;
}

/**
 * Checks a card before anything is charged or stored. Messages name the field and the rule and
 * never echo what was typed.
 */
export function validateCard(input: CardPaymentInput, now: Date): ValidatedCard {
  const number = normalizeCardNumber(input.cardNumber);
  if (!isLuhnValid(number)) {
    throw wrongParameter('cardNumber', 'must be a valid card number (12-19 digits passing the Luhn check)');
  }
  if (!Number.isInteger(input.expMonth) || input.expMonth < 1 || input.expMonth > 12) {
    throw wrongParameter('expMonth', 'must be an integer between 1 and 12');
  }
  if (!Number.isInteger(input.expYear) || input.expYear < 2000 || input.expYear > now.getUTCFullYear() + 25) {
    throw wrongParameter('expYear', `must be a four-digit year no later than ${now.getUTCFullYear() + 25}`);
  }
  if (isCardExpired(input.expMonth, input.expYear, now)) {
    throw wrongParameter('expYear', 'and expMonth must not be in the past (the card has expired)');
  }
  if (!/^\d{3,4}$/.test(input.cvc)) {
    throw wrongParameter('cvc', 'must be 3 or 4 digits');
  }
  const cardholderName = input.cardholderName.trim().replace(/\s+/g, ' ');
  if (cardholderName.length === 0 || cardholderName.length > 200 || /\d{6,}/.test(cardholderName)) {
    throw wrongParameter('cardholderName', 'must be the name printed on the card (1-200 characters)');
  }
  return { number, expMonth: input.expMonth, expYear: input.expYear, cvc: input.cvc, cardholderName };
}

/** How a card scheme is named to a customer (pages, receipts). */
export const cardSchemeNames: Readonly<Record<string, string>> = {
  VISA: 'Visa',
  MASTERCARD: 'Mastercard',
  AMEX: 'American Express',
  DISCOVER: 'Discover',
  JCB: 'JCB',
  DINERS: 'Diners Club',
  UNIONPAY: 'UnionPay',
  UNKNOWN: 'Card',
};

/** `Visa ending in 4242`. */
export function cardLabel(payment: Pick<PaymentRow, 'scheme' | 'last4'>): string {
  return `${cardSchemeNames[payment.scheme ?? 'UNKNOWN'] ?? 'Card'} ending in ${payment.last4}`;
}

/** The card description a successful payment shows (`payinDetails`). */
export function payinDetailsOf(payment: PaymentRow): PayinDetailsResponse {
  return {
    amount: payment.amount,
    currency: payment.currency,
    type: 'CARD',
    scheme: payment.scheme ?? 'UNKNOWN',
    last4: payment.last4,
    cardType: payment.cardType ?? 'CREDIT',
    bin: payment.bin,
    issuer: payment.issuer ?? 'Unknown issuer',
  };
}
