/**
 * Webhook endpoints and deliveries: signing, retries, fairness, the circuit breaker and redelivery.
 * Other modules and the app use it through this file only.
 */
export { secretAssociatedData } from './delivery.ts';
export { webhookEventsDocument } from './document.ts';
export { defaultFairnessLimits } from './fairness.ts';
export { webhookDeliveryLogRetention } from './retention.ts';
export { registerWebhookRoutes } from './routes.ts';
export { privateTargetsLiveWarning, subscribes } from './rules.ts';
export { RedeliverBody, WebhookDelivery, type WebhookDeliveryView, type WebhookEndpointView } from './schemas.ts';
export { createWebhooksService, type WebhooksService } from './service.ts';
export { buildSignedRequest, generateWebhookSecret, secretKey, secretPrefix, type WebhookEventPayload } from './signing.ts';
export { isTestEventId, testEventIdPrefix } from './test-events.ts';
