/**
 * The card processor port. The sandbox processor (test cards of contract §9 and a BIN table) and
 * any live adapter implement it. The full card number and CVC pass through `charge` only: they are
 * never stored or logged; what comes back is the non-sensitive card description and, when asked,
 * a reusable token for renewals.
 */
export type CardScheme = 'VISA' | 'MASTERCARD' | 'AMEX' | 'DISCOVER' | 'JCB' | 'DINERS' | 'UNIONPAY' | 'UNKNOWN';
export type CardType = 'CREDIT' | 'DEBIT' | 'PREPAID';

export interface CardDetails {
  number: string;
  expMonth: number;
  expYear: number;
  cvc: string;
  cardholderName: string;
}

/** What may be stored about a card. */
export interface CardDescription {
  bin: string;
  last4: string;
  scheme: CardScheme;
  cardType: CardType;
  issuer: string;
  expMonth: number;
  expYear: number;
}

export type ChargeResult =
  | {
      status: 'SUCCEEDED';
      /** The processor's id of this charge (idempotent by our payment id). */
      processorReference: string;
      /** The card network's transaction id, used to match issuer fraud files. */
      networkTransactionId: string;
      card: CardDescription;
      /** A reusable token for later charges (subscription renewals), when `saveCard` was asked. */
      token: string | null;
    }
  | { status: 'DECLINED'; declineReason: string; card: CardDescription | null };

export interface CardProcessor {
  readonly name: string;
  /** Charges a card once per `paymentId` (a retry with the same id returns the first result). */
  charge(input: { paymentId: string; livemode: boolean; amount: number; currency: string; card: CardDetails; saveCard: boolean }): Promise<ChargeResult>;
  /** Charges a saved token (renewals), once per `paymentId`. */
  chargeToken(input: { paymentId: string; livemode: boolean; amount: number; currency: string; token: string }): Promise<ChargeResult>;
  /**
   * The recorded result of an earlier `charge`/`chargeToken` with this `paymentId`, or null when the
   * processor never received it. Used to settle an attempt whose answer was lost (crash, timeout).
   * Optional: without it such an attempt is recorded as declined with `processing_error`.
   */
  retrieveCharge?(input: { paymentId: string; livemode: boolean }): Promise<ChargeResult | null>;
}
