/**
 * The card-processor port (sessions, off-session charges, refunds, disputes) with its sandbox and Stripe adapters.
 * Other modules and the app use it through this file only.
 */
export { schemeHints } from './bin-table.ts';
export { cardNumbersRefusedMessage, createProcessorsByMode, liveProcessorMissingMessage, type ProcessorsByMode } from './by-mode.ts';
export { isCardExpired, isLuhnValid, maskCardNumber, normalizeCardNumber } from './cards.ts';
export { createSandboxCardProcessor, type NetworkFraudSignal, sandboxCardProcessorName } from './sandbox.ts';
export { createStripeCardProcessor, createStripeClient, paymentIdMetadataKey, refundIdMetadataKey, stripeBrandSchemes, stripeProcessorName } from './stripe.ts';
export type { CardDetails, ChargeResult, PaymentLookup, PaymentSession, ProcessorDispute, ProcessorDisputeStatus, RefundState } from './types.ts';
