/**
 * Subscriptions: started by a paid payment page, renewed off-session, granting entitlements per period.
 * Other modules and the app use it through this file only.
 */
export { subscriptionActivity } from './activity.ts';
export { registerSubscriptionRoutes } from './routes.ts';
export { Subscription, type SubscriptionResponse } from './schemas.ts';
export { createSubscriptionsService, type SubscriptionsService } from './service.ts';
