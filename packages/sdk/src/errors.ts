import type { ErrorEnvelope } from './generated/openapi.ts';

/** The closed set of codes the API answers with (from the OpenAPI document). */
export type ApiErrorCode = ErrorEnvelope['errorCode'];

/**
 * Codes the SDK adds for failures without an API answer: the connection failed or timed out, or the
 * answer was not a Paysail envelope (a proxy's HTML error page, a cut-off body).
 */
export type ClientErrorCode = 'CONNECTION_ERROR' | 'TIMEOUT' | 'INVALID_RESPONSE';

export type PaysailErrorCode = ApiErrorCode | ClientErrorCode;

export interface PaysailErrorDetails {
  /** HTTP status; 0 when no answer arrived. */
  statusCode: number;
  errorCode: PaysailErrorCode;
  errorMessage: string;
  /** `requestId` of the error body (or the `Request-Id` header); absent when no answer arrived. */
  requestId?: string;
  /** The parsed error body, when there was one. */
  body?: unknown;
  headers?: Headers;
  /** How many HTTP attempts were made, retries included. */
  attempts?: number;
  cause?: unknown;
}

/**
 * Every failure the client reports. Pick a subclass with `instanceof`, or switch on `errorCode`
 * (the API's own code, e.g. `WRONG_PARAMETER`, `NOT_FOUND`, `INVALID_STATE`).
 */
export class PaysailError extends Error {
  readonly statusCode: number;
  readonly errorCode: PaysailErrorCode;
  readonly errorMessage: string;
  readonly requestId: string | undefined;
  readonly body: unknown;
  readonly headers: Headers | undefined;
  readonly attempts: number;

  constructor(details: PaysailErrorDetails) {
    super(`${details.errorCode}: ${details.errorMessage}${details.requestId ? ` (request ${details.requestId})` : ''}`, details.cause === undefined ? undefined : { cause: details.cause });
    this.name = new.target.name;
    this.statusCode = details.statusCode;
    this.errorCode = details.errorCode;
    this.errorMessage = details.errorMessage;
    this.requestId = details.requestId;
    this.body = details.body;
    this.headers = details.headers;
    this.attempts = details.attempts ?? 1;
  }
}

/** 400, 413, 415: the request itself is wrong (`WRONG_PARAMETER` names the field, `IMMUTABLE_FIELD`, …). */
export class PaysailInvalidRequestError extends PaysailError {}

/** 401 `UNAUTHORIZED`: missing, unknown or revoked API key. */
export class PaysailAuthenticationError extends PaysailError {}

/** 402 `CARD_DECLINED`, with the processor's `declineReason`. */
export class PaysailCardError extends PaysailError {
  readonly declineReason: string | undefined;

  constructor(details: PaysailErrorDetails) {
    super(details);
    const reason = isRecord(details.body) ? details.body.declineReason : undefined;
    this.declineReason = typeof reason === 'string' ? reason : undefined;
  }
}

/** 403 `FORBIDDEN` or `LIVE_MODE_NOT_ENABLED` (pass `livemode: false` for sandbox). */
export class PaysailPermissionError extends PaysailError {}

/** 404 `NOT_FOUND`: unknown id, another merchant's id, or a `livemode` that does not match. */
export class PaysailNotFoundError extends PaysailError {}

/** 409: duplicate references, `INVALID_STATE`, `INSUFFICIENT_FUNDS`, idempotency conflicts. */
export class PaysailConflictError extends PaysailError {}

/** 429 `RATE_LIMITED`, after the client's own retries; `retryAfterSeconds` from `Retry-After`. */
export class PaysailRateLimitError extends PaysailError {
  readonly retryAfterSeconds: number | undefined;

  constructor(details: PaysailErrorDetails) {
    super(details);
    const retryAfter = details.headers ? parseRetryAfterMs(details.headers.get('retry-after'), Date.now()) : undefined;
    this.retryAfterSeconds = retryAfter === undefined ? undefined : Math.ceil(retryAfter / 1000);
  }
}

/** 5xx (`INTERNAL_ERROR`, `SERVICE_UNAVAILABLE`), after the client's own retries. */
export class PaysailServerError extends PaysailError {}

/** No answer: connection refused or reset, DNS failure, or `TIMEOUT`, after the client's own retries. */
export class PaysailConnectionError extends PaysailError {}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** `Retry-After` as milliseconds from `now`: delta-seconds or an HTTP date; undefined when absent or unreadable. */
export function parseRetryAfterMs(value: string | null, now: number): number | undefined {
  if (value === null || value.trim() === '') {
    return undefined;
  }
  const text = value.trim();
  if (/^\d+(\.\d+)?$/.test(text)) {
    return Math.round(Number(text) * 1000);
  }
  const date = Date.parse(text);
  return Number.isNaN(date) ? undefined : Math.max(0, date - now);
}

/** The error for an HTTP answer that is not a success: the class follows the status, the code the body. */
export function errorFromResponse(statusCode: number, body: unknown, headers: Headers, attempts: number): PaysailError {
  const headerRequestId = headers.get('request-id') ?? undefined;
  const isEnvelope = isRecord(body) && body.status === 'FAILED' && typeof body.errorCode === 'string';
  const details: PaysailErrorDetails = isEnvelope
    ? {
        statusCode,
        errorCode: body.errorCode as ApiErrorCode,
        errorMessage: typeof body.errorMessage === 'string' ? body.errorMessage : String(body.errorCode),
        requestId: typeof body.requestId === 'string' ? body.requestId : headerRequestId,
        body,
        headers,
        attempts,
      }
    : { statusCode, errorCode: 'INVALID_RESPONSE', errorMessage: `HTTP ${statusCode} without a Paysail error envelope`, requestId: headerRequestId, body, headers, attempts };
  if (statusCode === 401) {
    return new PaysailAuthenticationError(details);
  }
  if (statusCode === 402) {
    return new PaysailCardError(details);
  }
  if (statusCode === 403) {
    return new PaysailPermissionError(details);
  }
  if (statusCode === 404) {
    return new PaysailNotFoundError(details);
  }
  if (statusCode === 409) {
    return new PaysailConflictError(details);
  }
  if (statusCode === 429) {
    return new PaysailRateLimitError(details);
  }
  if (statusCode >= 500) {
    return new PaysailServerError(details);
  }
  if (statusCode >= 400) {
    return new PaysailInvalidRequestError(details);
  }
  return new PaysailError(details);
}
