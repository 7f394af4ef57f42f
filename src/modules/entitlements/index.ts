/**
 * Entitlements: what a customer may use for a period, one per idempotency key (subscriptions grant them).
 * Other modules and the app use it through this file only.
 */
export { registerEntitlementRoutes } from './routes.ts';
export { Entitlement } from './schemas.ts';
export { createEntitlementsService, type EntitlementsService } from './service.ts';
