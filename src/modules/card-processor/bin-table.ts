import type { CardScheme, CardType } from './types.ts';

export interface BinInfo {
  scheme: CardScheme;
  cardType: CardType;
  issuer: string;
}

interface BinRange extends BinInfo {
  /** Inclusive prefix range of equal length, e.g. ['2221', '2720']; a single prefix is [p, p]. */
  range: readonly [string, string];
}

const range = (low: string, high: string, scheme: CardScheme, cardType: CardType, issuer: string): BinRange => ({ range: [low, high], scheme, cardType, issuer });
const prefix = (value: string, scheme: CardScheme, cardType: CardType, issuer: string): BinRange => range(value, value, scheme, cardType, issuer);

/**
 * The sandbox BIN table (documented in docs/guides/sandbox.md). The longest matching prefix wins, so
 * the specific test-card BINs override their scheme's generic range. Issuer names are fictional.
 */
export const sandboxBinTable: readonly BinRange[] = [
  prefix('424242', 'VISA', 'CREDIT', 'Paysail Test Bank'),
  prefix('400005', 'VISA', 'DEBIT', 'Harbor Savings Bank'),
  prefix('400000', 'VISA', 'CREDIT', 'Paysail Test Bank'),
  prefix('410000', 'VISA', 'CREDIT', 'Northwind Credit Union'),
  prefix('411111', 'VISA', 'CREDIT', 'First Sandbox Bank'),
  prefix('4', 'VISA', 'CREDIT', 'Sandbox Visa Issuer'),
  prefix('555555', 'MASTERCARD', 'CREDIT', 'Paysail Test Bank'),
  prefix('520082', 'MASTERCARD', 'DEBIT', 'Harbor Savings Bank'),
  range('51', '55', 'MASTERCARD', 'CREDIT', 'Sandbox Mastercard Issuer'),
  range('2221', '2720', 'MASTERCARD', 'CREDIT', 'Sandbox Mastercard Issuer'),
  prefix('34', 'AMEX', 'CREDIT', 'American Express Sandbox'),
  prefix('37', 'AMEX', 'CREDIT', 'American Express Sandbox'),
  prefix('6011', 'DISCOVER', 'CREDIT', 'Discover Sandbox Bank'),
  range('644', '649', 'DISCOVER', 'CREDIT', 'Discover Sandbox Bank'),
  prefix('65', 'DISCOVER', 'CREDIT', 'Discover Sandbox Bank'),
  range('3528', '3589', 'JCB', 'CREDIT', 'JCB Sandbox Issuer'),
  range('300', '305', 'DINERS', 'CREDIT', 'Diners Club Sandbox'),
  prefix('36', 'DINERS', 'CREDIT', 'Diners Club Sandbox'),
  range('38', '39', 'DINERS', 'CREDIT', 'Diners Club Sandbox'),
  prefix('62', 'UNIONPAY', 'DEBIT', 'UnionPay Sandbox Issuer'),
];

const unknown: BinInfo = { scheme: 'UNKNOWN', cardType: 'CREDIT', issuer: 'Unknown issuer' };

/** Scheme, card type and issuer of a card number (only its leading digits are looked at). */
export function lookupBin(cardNumber: string): BinInfo {
  let best: BinRange | undefined;
  for (const entry of sandboxBinTable) {
    const [low, high] = entry.range;
    const head = cardNumber.slice(0, low.length);
    if (head.length === low.length && head >= low && head <= high && (!best || low.length > best.range[0].length)) {
      best = entry;
    }
  }
  return best ? { scheme: best.scheme, cardType: best.cardType, issuer: best.issuer } : unknown;
}

/** What the hosted page's script shows while the customer types (scheme only, from the first digits). */
export function schemeHints(): Array<{ low: string; high: string; scheme: CardScheme }> {
  return sandboxBinTable.filter((entry) => entry.range[0].length <= 4).map((entry) => ({ low: entry.range[0], high: entry.range[1], scheme: entry.scheme }));
}
