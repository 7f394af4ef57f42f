/**
 * KYC verifications behind the provider port (sandbox, Onfido), reviews, re-verification and erasure.
 * Other modules and the app use it through this file only.
 */
export { verificationsForExport } from './erasure.ts';
export { createOnfido } from './onfido/index.ts';
export { createSandboxKycProvider } from './providers/sandbox.ts';
export type { CapturedDocuments, StepUpCapture } from './providers/types.ts';
export { createKycDetailsRetention } from './retention.ts';
export type { KycReviewItem, KycReviews } from './review.ts';
export { registerKycRoutes } from './routes.ts';
export { createKycService, type KycService, kycVerifyQueue } from './service.ts';
