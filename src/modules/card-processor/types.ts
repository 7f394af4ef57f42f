/**
 * The card processor port. It works with payment sessions, never with card numbers: Paysail creates
 * the processor's payment for one of its own (idempotent on our payment id), the customer confirms
 * it in the browser with the processor's own fields (Stripe's Payment Element; the sandbox's own
 * card form in sandbox mode only), and Paysail settles it from what the processor reports (its
 * webhook or a retrieve by our id). Saved cards are charged off-session; refunds are idempotent on
 * our refund id. What comes back is the non-sensitive card description, never a number or CVC.
 */
export type CardScheme = 'VISA' | 'MASTERCARD' | 'AMEX' | 'DISCOVER' | 'JCB' | 'DINERS' | 'UNIONPAY' | 'UNKNOWN';
export type CardType = 'CREDIT' | 'DEBIT' | 'PREPAID';

/** A card as typed into the sandbox's own card form (sandbox mode only; never stored or logged). */
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

/** The settled outcome of a payment. */
export type ChargeResult =
  | {
      status: 'SUCCEEDED';
      /** The processor's id of this payment (idempotent by our payment id). */
      processorReference: string;
      /** The card network's transaction id, used to match issuer fraud files. */
      networkTransactionId: string;
      card: CardDescription;
      /** A reusable token for later off-session charges (renewals), when `saveCard` was asked. */
      token: string | null;
    }
  | { status: 'DECLINED'; declineReason: string; card: CardDescription | null };

/**
 * Where a processor's payment stands: settled, or still open — waiting for the customer
 * (confirmation, 3-D Secure, another card after a decline: `declineReason` names the last failed
 * try) or for the processor itself.
 */
export type PaymentState = ChargeResult | { status: 'PENDING'; processorReference: string; declineReason?: string | null };

/**
 * A lookup by our payment id: the payment's state; null when the processor says for certain it
 * never received it; UNKNOWN when the answer is not authoritative (Stripe's search lags up to a
 * minute behind its writes): nothing may be concluded, ask again later.
 */
export type PaymentLookup = PaymentState | { status: 'UNKNOWN' } | null;

export interface PaymentSessionInput {
  /** Our payment id: the processor's idempotency key and the reference it is retrieved by. */
  paymentId: string;
  livemode: boolean;
  amount: number;
  currency: string;
  /** Keep the card for off-session renewals (the page starts a subscription). */
  saveCard: boolean;
}

/** The processor's payment for one of ours, as the browser needs it to confirm. */
export interface PaymentSession {
  processorReference: string;
  /** The secret the processor's browser fields confirm with (Stripe's `client_secret`); null for the sandbox form. */
  clientSecret: string | null;
}

/**
 * Where a refund stands at the processor. FAILED without `processorReference`: the processor
 * refused to make it at all (Stripe answers 400: already refunded, amount too large), so it holds
 * no refund of ours.
 */
export type RefundState =
  | { status: 'PENDING' | 'SUCCEEDED'; processorReference: string }
  | { status: 'FAILED'; processorReference: string | null; failureReason: string };

export interface CardProcessor {
  readonly name: string;
  /**
   * Creates (once per `paymentId`) the processor's payment the customer will confirm. With
   * `processorReference` (the session exists and we were told its id) it is read back instead:
   * a processor's idempotency keys do not outlive a page (Stripe keeps them 24 hours).
   */
  createPayment(input: PaymentSessionInput & { processorReference?: string | null }): Promise<PaymentSession>;
  /**
   * The processor's payment for our `paymentId`. Its own id (`processorReference`, when we were
   * told it) makes the lookup direct and authoritative; without it, see PaymentLookup.
   */
  retrievePayment(input: { paymentId: string; livemode: boolean; processorReference?: string | null }): Promise<PaymentLookup>;
  /**
   * Abandons a payment the customer never completed and answers where it then stands: DECLINED
   * (canceled), SUCCEEDED when it completed meanwhile, PENDING when the processor refused to cancel
   * it yet (still processing) — the processor decides, we never guess. UNKNOWN when the payment
   * cannot be found authoritatively (no `processorReference`, and a lagging search).
   */
  cancelPayment(input: { paymentId: string; livemode: boolean; processorReference?: string | null }): Promise<Exclude<PaymentLookup, null>>;
  /** Charges a saved card off-session (renewals), once per `paymentId`; a card needing authentication is declined (`authentication_required`). */
  chargeSaved(input: { paymentId: string; livemode: boolean; amount: number; currency: string; token: string }): Promise<ChargeResult>;
  /** Refunds (part of) a succeeded payment, once per `refundId` (the payment's `processorReference`, when known, makes the lookup direct). */
  refund(input: { refundId: string; paymentId: string; livemode: boolean; amount: number; processorReference?: string | null }): Promise<RefundState>;
  /** The refund made with our `refundId` (of our `paymentId`), or null when the processor never received it. */
  retrieveRefund(input: { refundId: string; livemode: boolean; paymentId?: string; processorReference?: string | null }): Promise<RefundState | null>;
}

export type ProcessorDisputeStatus = 'NEEDS_RESPONSE' | 'UNDER_REVIEW' | 'WON' | 'LOST';

/**
 * A dispute (chargeback) of one of our payments as the processor reports it now: the sandbox's
 * dispute job and test helper, or Stripe's dispute fetched after its webhook. Applied by the
 * disputes module, once per (`processor`, `processorReference`).
 */
export interface ProcessorDispute {
  processor: string;
  /** The processor's dispute id. */
  processorReference: string;
  /** Our payment id. */
  paymentId: string;
  livemode: boolean;
  amount: number;
  /** Upper case (`USD`). */
  currency: string;
  /** Upper snake case (`FRAUDULENT`, `PRODUCT_NOT_RECEIVED`, …). */
  reason: string;
  status: ProcessorDisputeStatus;
  evidenceDueBy: Date | null;
}
