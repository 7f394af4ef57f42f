import type Stripe from 'stripe';
import type { BrowserSide } from './stand-in.ts';

/** What a test drives and reads of the Stripe replica (`startStripeReplica` in replica.ts). */

export interface IntentState {
  intent: Stripe.PaymentIntent;
  charge: Stripe.Charge | null;
}

export interface StripeReplica {
  readonly url: string;
  readonly requests: Array<{ method: string; path: string; idempotencyKey: string | undefined }>;
  readonly intents: Map<string, IntentState>;
  readonly refunds: Map<string, Stripe.Refund>;
  readonly disputes: Map<string, Stripe.Dispute>;
  /** The cardholder disputes the intent's successful charge (Stripe opens it `needs_response`, or `status`). */
  dispute(intentId: string, options?: { reason?: string; status?: Stripe.Dispute.Status }): Stripe.Dispute;
  /** The dispute moves on at Stripe (`under_review`, `won`, `lost`, …). */
  setDisputeStatus(disputeId: string, status: Stripe.Dispute.Status): Stripe.Dispute;
  /** The issuer sends an early fraud warning on the intent's charge. */
  earlyFraudWarning(intentId: string, fraudType: string): Stripe.Radar.EarlyFraudWarning;
  /** A webhook event about `object`, as Stripe sends it: the JSON body and its `Stripe-Signature` made with `secret` (the package's own helper). */
  signedEvent(type: string, object: Stripe.Dispute | Stripe.Radar.EarlyFraudWarning | Stripe.PaymentIntent, secret: string, options?: { id?: string; timestamp?: number }): { id: string; payload: string; signature: string };
  /** The next `count` requests whose path starts with `pathPrefix` are processed but their answers are lost (the connection drops). */
  loseAnswers(pathPrefix: string, count: number): void;
  /** The next `count` requests whose path starts with `pathPrefix` are not processed: Stripe answers `500 api_error` (an unknown outcome to the caller). */
  failRequests(pathPrefix: string, count: number): void;
  /** The customer confirms in the Payment Element with a Stripe test card; `passChallenge` answers a 3-D Secure challenge. */
  confirm(intentId: string, cardNumber: string, options?: { passChallenge?: boolean }): Stripe.PaymentIntent;
  /** The issuer now asks for authentication on this saved PaymentMethod (off-session charges fail with `authentication_required`). */
  requireAuthentication(paymentMethod: string): void;
  /** A PaymentMethod for a Stripe test card, as if the customer had saved it earlier (renewal scenarios). */
  paymentMethod(cardNumber: string): string;
  /** Stripe moves a refund on (`pending` → `succeeded`, or `failed` as the 4000000000005126 card's do after succeeding); answers it as `refund.updated` would carry it. */
  updateRefund(refundId: string, status: 'succeeded' | 'failed'): Stripe.Refund;
  /** The intent with its charge expanded, as `GET /v1/payment_intents/:id?expand[]=latest_charge` answers. */
  expanded(intentId: string): Stripe.PaymentIntent;
  /** The customer confirmed with `cardNumber` and the network has not answered yet: the intent is `processing` until `finishProcessing`. */
  startProcessing(intentId: string, cardNumber: string): void;
  finishProcessing(intentId: string): void;
  /** While on, new PaymentIntents are not found by search (Stripe indexes them within about a minute) until `indexSearch()`. */
  lagSearch(on: boolean): void;
  indexSearch(): void;
  /** The URL of the Stripe.js stand-in (`STRIPE_JS_URL` in browser tests) and what its pages were sent. */
  readonly browser: BrowserSide;
  close(): Promise<void>;
}
