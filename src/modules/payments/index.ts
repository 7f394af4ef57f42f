/**
 * Card payments: attempts, settlement through the card-processor port, saved cards and renewals.
 * Payment pages, subscriptions and fraud reports use payments through this file only.
 */
export { createPaymentsService, type CheckoutContact, type PaymentSettledHook, type PaymentsService } from './service.ts';
export { cardLabel, cardProblems, cardSchemeNames, payinDetailsOf, validateCard, type CardProblem, type ValidatedCard } from './card.ts';
export { paymentAttemptResolveQueue } from './jobs.ts';
export { createPaymentCreditBackfill, paymentCreditBackfillQueue, type PaymentCreditBackfill, type PaymentCreditBackfillResult } from './backfill.ts';
export type { CardTokenRow, FraudCandidate, FraudCriteria, PageReference, PaymentRow } from './repository.ts';
export { findPayment, findPayments, lockPayment, refundBatchGateCtes, refundGateCtes, returnRefundAmount, takeRefundAmountCte, takeRefundBatchCte } from './repository.ts';
export { CardPaymentBody, PayinDetails, type CardPaymentInput, type PayinDetailsResponse } from './schemas.ts';
export {
  createStripeWebhooks,
  handledStripeEvents,
  perStripeAccount,
  stripeEventJob,
  stripeEventQueue,
  stripeProviderCheck,
  stripeRefundEventQueue,
  type StripeAccount,
  type StripeEnvironment,
  type StripeEventJob,
  type StripeEventRoute,
  type StripeObjectEventJob,
} from './stripe-events.ts';
export { customerPaymentsForExport, erasePaymentData } from './erasure.ts';
