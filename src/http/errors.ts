/**
 * The closed set of error codes of docs/API.md §3, each with its HTTP status. Adding a code means
 * adding it here; the exhaustive map makes the compiler ask for its status.
 */
export const errorStatus = {
  /** Thrown when input fails validation, a body has unknown fields or bad JSON, or a PAID page is expired. */
  WRONG_PARAMETER: 400,
  /** Thrown when an update touches a field that cannot change (supportedPaymentMethods once set, …). */
  IMMUTABLE_FIELD: 400,
  UNAUTHORIZED: 401,
  CARD_DECLINED: 402,
  LIVE_MODE_NOT_ENABLED: 403,
  FORBIDDEN: 403,
  /** Thrown for unknown ids and for ids of another merchant or mode (existence is never revealed). */
  NOT_FOUND: 404,
  DUPLICATE_REFERENCE_ID: 409,
  DUPLICATE_CLIENT_REFERENCE_ID: 409,
  /** Thrown when an action is not allowed in the resource's current status. */
  INVALID_STATE: 409,
  INSUFFICIENT_FUNDS: 409,
  IDEMPOTENCY_KEY_REUSED: 409,
  IDEMPOTENCY_KEY_IN_USE: 409,
  /** Thrown when a retry finds its key's request carried out but its answer never stored (the server stopped in between); it is not run again. */
  IDEMPOTENCY_KEY_RESPONSE_LOST: 409,
  PAYLOAD_TOO_LARGE: 413,
  UNSUPPORTED_MEDIA_TYPE: 415,
  RATE_LIMITED: 429,
  INTERNAL_ERROR: 500,
  SERVICE_UNAVAILABLE: 503,
} as const satisfies Record<string, number>;

export type ErrorCode = keyof typeof errorStatus;
export const errorCodes = Object.keys(errorStatus) as ErrorCode[];

export class AppError extends Error {
  readonly statusCode: number;
  constructor(
    readonly code: ErrorCode,
    /** Public message: names the field and the rule; never internals or PII. */
    message: string,
    readonly extra: Record<string, unknown> = {},
    readonly headers: Record<string, string> = {},
  ) {
    super(message);
    this.name = 'AppError';
    this.statusCode = errorStatus[code];
  }
}

export function wrongParameter(field: string, rule: string): AppError {
  return new AppError('WRONG_PARAMETER', `${field} ${rule}`, { field });
}

export function notFound(what: string, id: string): AppError {
  return new AppError('NOT_FOUND', `No ${what} found with id '${id.slice(0, 80)}'`);
}

/** Expected outcomes log below error level so that alerts mean crashes. */
export function isExpected(error: AppError): boolean {
  return error.statusCode < 500;
}
