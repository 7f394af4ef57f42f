/**
 * Hosted payment pages: checkout, settlement through payments, receipts and refund notices, renewal pages.
 * Other modules and the app use it through this file only.
 */
export { erasePaymentPageData, paymentPageActivity } from './erasure.ts';
export { clientReferenceIdOfPage, pageClientReferenceId, type PageTarget, refundPageSelect, refundPagesSelect } from './references.ts';
export { registerPaymentPageRoutes, requireSandbox } from './routes.ts';
export { PayinDetails, PaymentPage, PaymentPageCreateBody, type PaymentPageCreateInput, paymentCurrencies, type PaymentPageResponse } from './schemas.ts';
export { createPaymentPagesService, type PaymentPagesService } from './service.ts';
export type { PaidPaymentPage } from './settlement.ts';
