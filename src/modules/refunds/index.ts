/**
 * Refunds of card payments: created on a PAID payment page, settled by the card processor, posted
 * to the ledger. Other modules and the app use refunds through this file only.
 */
export { createRefundsService, type RefundSucceededHook, type RefundsService } from './service.ts';
export { registerRefundRoutes } from './routes.ts';
export { refundProcessQueue } from './jobs.ts';
export { Refund, RefundCreateBody, RefundList, type RefundView } from './schemas.ts';
export { stripeRefundEventJob } from './stripe-events.ts';
