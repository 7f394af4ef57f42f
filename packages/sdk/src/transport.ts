import { randomUUID } from 'node:crypto';
import { operations } from './generated/operations.ts';
import type { BodyMode, OperationKey, Operations, OperationSpec } from './types.ts';
import { PaysailConnectionError, PaysailError, errorFromResponse, parseRetryAfterMs, type PaysailErrorDetails } from './errors.ts';

export const sdkVersion = '0.1.0';

export interface ClientOptions {
  /** The merchant API key (`sk_…`), sent as the HTTP Basic user name with an empty password. */
  apiKey: string;
  /** Where the Paysail server answers, e.g. `https://pay.example.com` (default `http://localhost:4000`). */
  baseUrl?: string;
  /**
   * Default `livemode` for every call that takes it: `false` is sandbox, `true` live. Unset, the
   * parameter is not sent: creates default to live, lists return both modes (docs/API.md §1).
   */
  livemode?: boolean;
  /** Retries after the first attempt (default 2). Only safe requests are retried: GET, DELETE, and POST with an Idempotency-Key. */
  maxRetries?: number;
  /** Per attempt, in milliseconds (default 60 000); a timed-out attempt counts as a network error. */
  timeoutMs?: number;
  /** First backoff delay (default 500 ms); doubles per retry up to `maxRetryDelayMs` (default 8 000 ms), with jitter. */
  initialRetryDelayMs?: number;
  maxRetryDelayMs?: number;
  /** A `Retry-After` longer than this (default 60 000 ms) is not waited for: the error is thrown instead. */
  maxRetryAfterMs?: number;
  /** Another `fetch` (a proxy agent, instrumentation). Default the global one. */
  fetch?: typeof fetch;
  /** How to wait between retries (tests replace it to record the delays). */
  sleep?: (ms: number, signal?: AbortSignal) => Promise<void>;
  /** Extra headers on every request. */
  headers?: Record<string, string>;
}

export interface RequestOptions {
  /** Overrides the client's `livemode` for this call. */
  livemode?: boolean;
  /**
   * POST only. Default: a fresh UUID per call, reused by every retry of that call. Pass your own to
   * make a call safe to repeat across processes, or `false` to send none (and not retry the POST).
   */
  idempotencyKey?: string | false;
  maxRetries?: number;
  timeoutMs?: number;
  signal?: AbortSignal;
  headers?: Record<string, string>;
}

/** Arguments of one operation: path parameters (when it has any), query and body as the document types them. */
export type CallArguments<K extends OperationKey> = (Operations[K]['pathParams'] extends Record<string, never>
  ? { pathParams?: Record<string, never> }
  : { pathParams: Operations[K]['pathParams'] }) & { query?: Operations[K]['query'] } & (BodyMode<K> extends 'required'
    ? { body: Operations[K]['body'] }
    : { body?: Operations[K]['body'] });

export type Result<K extends OperationKey> = Operations[K]['result'];

/** A successful answer with its HTTP details. */
export interface ApiResponse<T> {
  data: T;
  statusCode: number;
  headers: Headers;
  requestId: string | undefined;
  /** True when the server replayed the stored answer of an earlier request with the same Idempotency-Key. */
  idempotentReplayed: boolean;
  idempotencyKey: string | undefined;
  attempts: number;
}

type QueryValue = string | number | boolean | null | undefined | QueryObject;
interface QueryObject {
  [key: string]: QueryValue;
}

/** `{ pagination: { offset: 0 } }` → `pagination[offset]=0`, the bracket notation the API reads. */
export function appendQuery(params: URLSearchParams, value: QueryValue, prefix: string): void {
  if (value === undefined || value === null) {
    return;
  }
  if (typeof value === 'object') {
    for (const [key, inner] of Object.entries(value)) {
      appendQuery(params, inner, prefix === '' ? key : `${prefix}[${key}]`);
    }
    return;
  }
  params.append(prefix, String(value));
}

function defaultSleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) {
      reject(signal.reason);
      return;
    }
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    const onAbort = () => {
      clearTimeout(timer);
      reject(signal?.reason);
    };
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}

type Attempt = { kind: 'answer'; response: Response; text: string } | { kind: 'network'; details: PaysailErrorDetails };

/**
 * Sends operations from the generated table: Basic auth, `livemode`, automatic Idempotency-Key on
 * POST, and retries with exponential backoff and jitter on network errors, 429, 5xx and
 * `IDEMPOTENCY_KEY_IN_USE` — only where repeating cannot do anything twice.
 */
export class Transport {
  readonly baseUrl: string;
  readonly livemode: boolean | undefined;
  private readonly authorization: string;
  private readonly options: ClientOptions;
  private readonly fetchImplementation: typeof fetch;
  private readonly sleep: (ms: number, signal?: AbortSignal) => Promise<void>;

  constructor(options: ClientOptions) {
    if (typeof options.apiKey !== 'string' || options.apiKey === '') {
      throw new TypeError('Paysail: apiKey is required');
    }
    this.options = options;
    this.baseUrl = (options.baseUrl ?? 'http://localhost:4000').replace(/\/+$/, '');
    this.livemode = options.livemode;
    this.authorization = `Basic ${Buffer.from(`${options.apiKey}:`).toString('base64')}`;
    this.fetchImplementation = options.fetch ?? globalThis.fetch;
    this.sleep = options.sleep ?? defaultSleep;
  }

  /** Builds the URL of an operation: path parameters encoded, `livemode` added when the operation takes it. */
  url<K extends OperationKey>(key: K, args: CallArguments<K>, options: RequestOptions = {}): string {
    const spec: OperationSpec = operations[key];
    const pathParams = (args.pathParams ?? {}) as Record<string, string>;
    const path = spec.path.replace(/\{([^}]+)\}/g, (_match, name: string) => {
      const value = pathParams[name];
      if (typeof value !== 'string' || value === '') {
        throw new TypeError(`Paysail: ${name} is required for ${key}`);
      }
      return encodeURIComponent(value);
    });
    const query: QueryObject = { ...((args.query ?? {}) as QueryObject) };
    const livemode = options.livemode ?? this.livemode;
    if ((spec.query as readonly string[]).includes('livemode') && query.livemode === undefined && livemode !== undefined) {
      query.livemode = livemode;
    }
    const params = new URLSearchParams();
    appendQuery(params, query, '');
    const search = params.toString();
    return `${this.baseUrl}${path}${search === '' ? '' : `?${search}`}`;
  }

  async call<K extends OperationKey>(key: K, args: CallArguments<K>, options: RequestOptions = {}): Promise<Result<K>> {
    return (await this.callWithResponse(key, args, options)).data;
  }

  async callWithResponse<K extends OperationKey>(key: K, args: CallArguments<K>, options: RequestOptions = {}): Promise<ApiResponse<Result<K>>> {
    const spec: OperationSpec = operations[key];
    const url = this.url(key, args, options);
    const headers: Record<string, string> = {
      accept: 'application/json',
      authorization: this.authorization,
      'user-agent': `paysail-sdk-typescript/${sdkVersion}`,
      ...this.options.headers,
      ...options.headers,
    };
    let body: string | undefined;
    if (args.body !== undefined && spec.body !== 'none') {
      body = JSON.stringify(args.body);
      headers['content-type'] = 'application/json';
    }
    let idempotencyKey: string | undefined;
    if (spec.method === 'POST' && options.idempotencyKey !== false) {
      idempotencyKey = options.idempotencyKey ?? randomUUID();
      headers['idempotency-key'] = idempotencyKey;
    }
    // A POST without a key could run twice; everything else either reads or names its effect.
    const retryable = spec.method !== 'POST' || idempotencyKey !== undefined;
    const maxRetries = retryable ? Math.max(0, options.maxRetries ?? this.options.maxRetries ?? 2) : 0;

    for (let attempt = 1; ; attempt += 1) {
      const outcome = await this.attempt(spec.method, url, headers, body, options);
      if (outcome.kind === 'network') {
        if (attempt <= maxRetries) {
          await this.sleep(this.backoffMs(attempt), options.signal);
          continue;
        }
        throw new PaysailConnectionError({ ...outcome.details, attempts: attempt });
      }
      const { response, text } = outcome;
      const parsed = parseJson(text);
      if (response.ok) {
        return {
          data: readSuccess(spec.envelope, response, parsed, attempt) as Result<K>,
          statusCode: response.status,
          headers: response.headers,
          requestId: response.headers.get('request-id') ?? undefined,
          idempotentReplayed: response.headers.get('idempotent-replayed') === 'true',
          idempotencyKey,
          attempts: attempt,
        };
      }
      const error = errorFromResponse(response.status, parsed.ok ? parsed.value : text, response.headers, attempt);
      if (attempt <= maxRetries && isRetryableAnswer(error)) {
        const delay = this.retryDelayMs(attempt, response.headers);
        if (delay !== undefined) {
          await this.sleep(delay, options.signal);
          continue;
        }
      }
      throw error;
    }
  }

  private async attempt(method: string, url: string, headers: Record<string, string>, body: string | undefined, options: RequestOptions): Promise<Attempt> {
    const timeoutMs = options.timeoutMs ?? this.options.timeoutMs ?? 60_000;
    const timeout = AbortSignal.timeout(timeoutMs);
    const signal = options.signal ? AbortSignal.any([options.signal, timeout]) : timeout;
    try {
      // The API never redirects; a 3xx (a misconfigured proxy) surfaces as INVALID_RESPONSE instead of being followed with the API key.
      const response = await this.fetchImplementation(url, { method, headers, body, signal, redirect: 'manual' });
      // Reading the body can fail too (a reset mid-answer): that is a network error as well.
      const text = await response.text();
      return { kind: 'answer', response, text };
    } catch (error) {
      if (options.signal?.aborted) {
        // The caller cancelled: never retried, rethrown as given.
        throw options.signal.reason;
      }
      const timedOut = timeout.aborted;
      return {
        kind: 'network',
        details: {
          statusCode: 0,
          errorCode: timedOut ? 'TIMEOUT' : 'CONNECTION_ERROR',
          errorMessage: timedOut ? `No answer from ${method} ${url} within ${timeoutMs} ms` : `${method} ${url} failed: ${describeNetworkError(error)}`,
          cause: error,
        },
      };
    }
  }

  /** Exponential backoff with "equal jitter": half the step fixed, half random, so retries spread out. */
  private backoffMs(attempt: number): number {
    const initial = this.options.initialRetryDelayMs ?? 500;
    const max = this.options.maxRetryDelayMs ?? 8_000;
    const step = Math.min(max, initial * 2 ** (attempt - 1));
    return Math.round(step / 2 + Math.random() * (step / 2));
  }

  /** The server's `Retry-After` when it sent one (undefined: too long to wait), else the backoff. */
  private retryDelayMs(attempt: number, headers: Headers): number | undefined {
    const retryAfter = parseRetryAfterMs(headers.get('retry-after'), Date.now());
    if (retryAfter === undefined) {
      return this.backoffMs(attempt);
    }
    return retryAfter > (this.options.maxRetryAfterMs ?? 60_000) ? undefined : retryAfter;
  }
}

function isRetryableAnswer(error: PaysailError): boolean {
  return error.statusCode === 429 || error.statusCode >= 500 || error.errorCode === 'IDEMPOTENCY_KEY_IN_USE';
}

function parseJson(text: string): { ok: true; value: unknown } | { ok: false } {
  if (text === '') {
    return { ok: false };
  }
  try {
    return { ok: true, value: JSON.parse(text) as unknown };
  } catch {
    return { ok: false };
  }
}

function readSuccess(envelope: boolean, response: Response, parsed: { ok: true; value: unknown } | { ok: false }, attempts: number): unknown {
  const invalid = (reason: string) =>
    new PaysailError({ statusCode: response.status, errorCode: 'INVALID_RESPONSE', errorMessage: reason, requestId: response.headers.get('request-id') ?? undefined, headers: response.headers, attempts });
  if (!parsed.ok) {
    throw invalid(`HTTP ${response.status} with a body that is not JSON`);
  }
  if (!envelope) {
    return parsed.value;
  }
  const value = parsed.value;
  if (typeof value !== 'object' || value === null || (value as { status?: unknown }).status !== 'SUCCEEDED' || !('data' in value)) {
    throw invalid(`HTTP ${response.status} without a SUCCEEDED envelope`);
  }
  return (value as { data: unknown }).data;
}

function describeNetworkError(error: unknown): string {
  if (error instanceof Error) {
    const cause = error.cause instanceof Error ? `: ${error.cause.message}` : '';
    return `${error.message}${cause}`;
  }
  return String(error);
}
