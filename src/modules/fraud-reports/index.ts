/**
 * Fraud reports: card networks' issuer-fraud files, Stripe's early fraud warnings and the sandbox's signals.
 * Other modules and the app use it through this file only.
 */
export { eraseFraudReportData } from './erasure.ts';
export type { FraudNetwork } from './networks.ts';
export { registerFraudImportAdminRoutes, registerFraudReportRoutes } from './routes.ts';
export type { FraudReportListInput, FraudReportResponse } from './schemas.ts';
export { createFraudReportsService, type FraudReportsService } from './service.ts';
export { stripeFraudWarningEvents, stripeFraudWarningJob, stripeFraudWarningQueue } from './stripe-warnings.ts';
