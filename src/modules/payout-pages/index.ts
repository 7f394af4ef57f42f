/**
 * Hosted payout pages: the customer flow, KYC gating, funding, the payout rails and reconciliation.
 * Other modules and the app use it through this file only.
 */
export { parseReportDate, registerPayoutAdminRoutes } from './admin-routes.ts';
export { isRetryable } from './customer-flow.ts';
export type { CryptoNetwork, PayoutDestination, PayoutMethodInput, PayoutMethodType } from './destinations.ts';
export { formatAmount, formatDate, pageCreatedEmail, verificationCodeEmail } from './emails.ts';
export { erasePayoutPageData, payoutPageActivity } from './erasure.ts';
export { createCirclePayouts } from './rails/circle/index.ts';
export { explorerUrl, railReferenceUrl } from './rails/explorer.ts';
export { createIncreasePayouts } from './rails/increase/index.ts';
export { createSandboxPayoutRail } from './rails/sandbox.ts';
export type { PayoutPageRow } from './repository.ts';
export { registerPayoutPageRoutes } from './routes.ts';
export { fundingCurrencies, type KycInput, PayoutPage, PayoutPageCreateBody, type PayoutPageCreateInput, type PayoutPageResponse, releaseMethods } from './schemas.ts';
export { createPayoutPagesService, type PayoutPagesService } from './service.ts';
export { findTransition, isFinal, type PayoutPageStatus, payoutPageStatuses, type PayoutPageSubStatus, payoutPageSubStatuses } from './states.ts';
