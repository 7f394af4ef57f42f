/**
 * Merchants, their API keys and PII keys, their dashboard logins, and the hook other modules run when
 * a merchant is created.
 * Other modules and the app use it through this file only.
 */
export { type AuthenticatedKey, createMerchantsService, type Merchant, type MerchantsService, passwordHashOptions, type PiiKey } from './service.ts';
export { merchantView } from './view.ts';
export { fraudReportWebhooksEnabled, fraudReportWebhooksEnabledOf, lockMerchantRow, merchantEmailOf } from './reads.ts';
export { type Brand, type BrandingChange, type BrandingService, type BrandingSettings, createBrandingService, displayNameMaxLength, loadBrand } from './branding.ts';
export { merchantContact, merchantName, merchantNameOf } from './contact.ts';
export { buttonColorsFor } from './contrast.ts';
export {
  countOwners,
  type DashboardUser,
  deleteDashboardUser,
  findDashboardUser,
  findDashboardUserByEmail,
  findTeamMember,
  insertDashboardUser,
  lockOwners,
  setDashboardUserPassword,
  setDashboardUserRole,
  setRequireTwoFactor,
} from './dashboard-users.ts';
export { isLogoType, logoMaxBytes } from './logo.ts';
