import { wrongParameter } from '../../http/errors.ts';
import { isCardExpired, isLuhnValid, normalizeCardNumber } from '../card-processor/index.ts';
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

/** One thing wrong with a typed card: the API field, what is wrong, and the API's message (never the value). */
export interface CardProblem {
  field: 'cardNumber' | 'expMonth' | 'expYear' | 'cvc' | 'cardholderName';
  rule: 'invalid' | 'month' | 'year' | 'expired';
  message: string;
}

function normalizeName(name: string): string {
  return name.trim().replace(/\s+/g, ' ');
}

/**
 * Every problem of a typed card, in form order (the hosted checkout shows them all at once; the API
 * answers the first). Messages name the field and the rule and never echo what was typed.
 */
export function cardProblems(input: CardPaymentInput, now: Date): CardProblem[] {
  const problems: CardProblem[] = [];
  if (!isLuhnValid(normalizeCardNumber(input.cardNumber))) {
    problems.push({ field: 'cardNumber', rule: 'invalid', message: 'must be a valid card number (12-19 digits passing the Luhn check)' });
  }
  const monthValid = Number.isInteger(input.expMonth) && input.expMonth >= 1 && input.expMonth <= 12;
  const yearValid = Number.isInteger(input.expYear) && input.expYear >= 2000 && input.expYear <= now.getUTCFullYear() + 25;
  if (!monthValid) {
    problems.push({ field: 'expMonth', rule: 'month', message: 'must be an integer between 1 and 12' });
  } else if (!yearValid) {
    problems.push({ field: 'expYear', rule: 'year', message: `must be a four-digit year no later than ${now.getUTCFullYear() + 25}` });
  } else if (isCardExpired(input.expMonth, input.expYear, now)) {
    problems.push({ field: 'expYear', rule: 'expired', message: 'and expMonth must not be in the past (the card has expired)' });
  }
  if (!/^\d{3,4}$/.test(input.cvc)) {
    problems.push({ field: 'cvc', rule: 'invalid', message: 'must be 3 or 4 digits' });
  }
  const cardholderName = normalizeName(input.cardholderName);
  if (cardholderName.length === 0 || cardholderName.length > 200 || /\d{6,}/.test(cardholderName)) {
    problems.push({ field: 'cardholderName', rule: 'invalid', message: 'must be the name printed on the card (1-200 characters)' });
  }
  return problems;
}

/** Checks a card before anything is charged or stored: the first of `cardProblems` as 400 WRONG_PARAMETER. */
export function validateCard(input: CardPaymentInput, now: Date): ValidatedCard {
  const [problem] = cardProblems(input, now);
  if (problem) {
    throw wrongParameter(problem.field, problem.message);
  }
  return { number: normalizeCardNumber(input.cardNumber), expMonth: input.expMonth, expYear: input.expYear, cvc: input.cvc, cardholderName: normalizeName(input.cardholderName) };
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
