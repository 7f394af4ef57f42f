export { Paysail } from './client.ts';
export type { ApiResponse, CallArguments, ClientOptions, RequestOptions, Result } from './transport.ts';
export { sdkVersion } from './transport.ts';
export {
  PaysailAuthenticationError,
  PaysailCardError,
  PaysailConflictError,
  PaysailConnectionError,
  PaysailError,
  PaysailInvalidRequestError,
  PaysailNotFoundError,
  PaysailPermissionError,
  PaysailRateLimitError,
  PaysailServerError,
} from './errors.ts';
export type { ApiErrorCode, ClientErrorCode, PaysailErrorCode } from './errors.ts';
export type { Body, Entitlement, Query, Subscription } from './resources.ts';
export { collect, paginate } from './paging.ts';
export { webhooks, verify as verifyWebhook, WebhookVerificationError } from './webhooks.ts';
export type { UnsignedEvent, VerifyWebhookOptions, WebhookEvent, WebhookHeaders } from './webhooks.ts';
export { pii, decrypt as decryptPii, PiiDecryptionError } from './pii.ts';
export type { PiiKey } from './pii.ts';
export { canonicalJson } from './canonical-json.ts';
export { apiVersion, operations, webhookEventTypes } from './generated/operations.ts';
export type { BodyMode, HasEnvelope, Nest, OperationKey, OperationOf, Operations, OperationSpec, OperationTable, WebhookEventType } from './types.ts';
// Every type of the document, as openapi-typescript generates it, and the component schemas by name.
export type { components, paths, webhooks as WebhookDefinitions } from './generated/openapi.ts';
export type {
  Balance,
  Customer,
  CustomerExport,
  Dispute,
  ErasedCustomer,
  ErrorEnvelope,
  Event,
  FraudReport,
  KycReviewItem,
  PaymentPage,
  PayoutPage,
  Refund,
  WebhookDelivery,
  WebhookEndpoint,
  WebhookEndpointWithSecret,
} from './generated/openapi.ts';
