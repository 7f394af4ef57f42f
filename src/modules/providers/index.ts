export type { ProviderCheck, ProviderWebhookHandler, ProviderWebhookRequest } from './types.ts';
export { providerEventKey, recordProviderEvent } from './events.ts';
export { registerProviderWebhookRoutes } from './routes.ts';
export { plainProviderError, providerCall, withPlainErrors } from './errors.ts';
export { loadProviderPackage } from './sdk.ts';
