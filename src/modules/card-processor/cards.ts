import type { CardScheme } from './types.ts';

/**
 * Pure card-number helpers. Nothing here keeps, logs or returns a full card number except
 * `normalizeCardNumber`, whose result goes straight to the processor adapter.
 */

/** Digits only: customers type spaces and dashes. */
export function normalizeCardNumber(raw: string): string {
  return raw.replace(/[\s-]/g, '');
}

export function isLuhnValid(digits: string): boolean {
  if (!/^\d{12,19}$/.test(digits)) {
    return false;
  }
  let sum = 0;
  let double = false;
  for (let index = digits.length - 1; index >= 0; index -= 1) {
    let digit = digits.charCodeAt(index) - 48;
    if (double) {
      digit *= 2;
      if (digit > 9) {
        digit -= 9;
      }
    }
    sum += digit;
    double = !double;
  }
  return sum % 10 === 0;
}

/** A card is valid through the last day of its expiry month (UTC). */
export function isCardExpired(expMonth: number, expYear: number, now: Date): boolean {
  const firstDayAfter = Date.UTC(expYear, expMonth, 1);
  return now.getTime() >= firstDayAfter;
}

/** `411111******1111`: leading six and trailing four digits visible (docs/guides/fraud-reports.md, The report). */
export function maskCardNumber(bin: string, last4: string): string {
  return `${bin}******${last4}`;
}

/** The CVC length a scheme's cards carry (American Express prints four digits). */
export function cvcLengthFor(scheme: CardScheme): number {
  return scheme === 'AMEX' ? 4 : 3;
}
