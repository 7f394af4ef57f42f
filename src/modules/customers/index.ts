/**
 * Customers: identity data sealed as one record, the e-mail lookup hash, payout methods, KYC data rules.
 * Other modules and the app use it through this file only.
 */
export { identityProblems, location } from './identity.ts';
export { registerCustomerRoutes } from './routes.ts';
export { addressFields, isCountryCode, isUsStateCode, type KycData, missingKycFields, normalizeEmail, payoutMethods, personFields } from './rules.ts';
export { AddressInput, Customer, CustomerIdParams, CustomerOrErased, ErasedCustomer, type ErasedCustomerResponse } from './schemas.ts';
export {
  countKycDetailsDue,
  type CustomerActivity,
  customerReferenceId,
  lockKycDetailsDue,
  lockKycState,
  lockScopedCustomer,
  moveKycStatus,
  payoutMethodsOf,
  purgeKycDetails,
  referenceIdOf,
  setPendingKycReason,
} from './rows.ts';
export { createEmailLookupBackfill } from './sealing.ts';
export { createCustomersService, type CustomersService } from './service.ts';
export type { CustomerKyc, KycStartPlan, KycSubject } from './kyc-port.ts';
