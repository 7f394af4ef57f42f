/**
 * The operator's API (`/admin/v1`): merchants, API keys, PII keys and customers' payout methods, through the owning modules' services.
 * Other modules and the app use it through this file only.
 */
export { registerAdminRoutes } from './routes.ts';
