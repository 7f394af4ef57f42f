import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { Socket } from 'node:net';
import { AppError, errorStatus, isExpected, wrongParameter, type ErrorCode } from './errors.ts';
import { validationError } from './validation.ts';
import { randomToken } from '../crypto/ids.ts';

declare module 'fastify' {
  interface FastifyRequest {
    /** Set once the response is known to be an error, for logs and metrics. */
    errorCode?: ErrorCode;
  }
}

const connectionErrorCodes = new Set(['ECONNREFUSED', 'ECONNRESET', 'ETIMEDOUT', 'EPIPE', 'ENOTFOUND', '57P01', '57P02', '57P03', '53300']);

/** Errors that mean "the database is not reachable right now" (answered 503, not 500). */
export function isDatabaseUnavailable(error: unknown): boolean {
  let current: unknown = error;
  for (let depth = 0; depth < 4 && current; depth += 1) {
    const candidate = current as { code?: unknown; message?: unknown; cause?: unknown };
    if (typeof candidate.code === 'string' && (connectionErrorCodes.has(candidate.code) || candidate.code.startsWith('08'))) {
      return true;
    }
    if (typeof candidate.message === 'string' && /Connection terminated|connection timeout|Client has encountered a connection error|PGlite is closed/i.test(candidate.message)) {
      return true;
    }
    current = candidate.cause;
  }
  return false;
}

export function errorBody(request: FastifyRequest, error: AppError): Record<string, unknown> {
  return { status: 'FAILED', errorCode: error.code, errorMessage: error.message, requestId: request.id, ...error.extra };
}

export function sendError(request: FastifyRequest, reply: FastifyReply, error: AppError): FastifyReply {
  request.errorCode = error.code;
  for (const [name, value] of Object.entries(error.headers)) {
    reply.header(name, value);
  }
  // The merchant API is HTTP Basic; the admin API names its own (Bearer) scheme in error.headers.
  if (error.code === 'UNAUTHORIZED' && !reply.hasHeader('WWW-Authenticate')) {
    reply.header('WWW-Authenticate', 'Basic realm="Paysail API", charset="UTF-8"');
  }
  const { field: _field, ...extra } = error.extra;
  return reply
    .code(error.statusCode)
    .type('application/json; charset=utf-8')
    .send(JSON.stringify({ status: 'FAILED', errorCode: error.code, errorMessage: error.message, requestId: request.id, ...extra }));
}

/** Maps whatever was thrown to one of our closed error codes. */
export function toAppError(error: unknown): AppError {
  if (error instanceof AppError) {
    return error;
  }
  const fastifyError = error as FastifyError & { validationContext?: string };
  if (fastifyError.validation) {
    return validationError(fastifyError.validationContext ?? 'body', fastifyError.validation as never);
  }
  switch (fastifyError.code) {
    case 'FST_ERR_CTP_BODY_TOO_LARGE':
      return new AppError('PAYLOAD_TOO_LARGE', 'The request body is larger than 1 MiB');
    case 'FST_ERR_CTP_INVALID_MEDIA_TYPE':
      return new AppError('UNSUPPORTED_MEDIA_TYPE', 'The request body must be JSON (Content-Type: application/json)');
    case 'FST_ERR_CTP_INVALID_CONTENT_LENGTH':
    case 'FST_ERR_CTP_EMPTY_JSON_BODY':
    case 'FST_ERR_CTP_INVALID_JSON_BODY':
      return new AppError('WRONG_PARAMETER', 'body is not valid JSON');
    default:
      break;
  }
  if (error instanceof SyntaxError || fastifyError.code === 'FST_ERR_CTP_INVALID_JSON_BODY') {
    return new AppError('WRONG_PARAMETER', 'body is not valid JSON');
  }
  if (isDatabaseUnavailable(error)) {
    return new AppError('SERVICE_UNAVAILABLE', 'The service is temporarily unavailable; retry with the same Idempotency-Key', {}, { 'Retry-After': '1' });
  }
  const status = typeof fastifyError.statusCode === 'number' ? fastifyError.statusCode : 500;
  if (status === 404) {
    return new AppError('NOT_FOUND', 'Not found');
  }
  if (status >= 400 && status < 500) {
    return new AppError('WRONG_PARAMETER', 'The request is malformed');
  }
  return new AppError('INTERNAL_ERROR', 'An unexpected error occurred; it has been logged with the requestId');
}

/**
 * Makes every answer an envelope: validation, parser, not-found and unexpected errors included.
 * Stack traces and internals go to the log only.
 */
export function installErrorHandling(app: FastifyInstance): void {
  // An empty body with Content-Type: application/json is "no body" (the expire call sends one).
  const defaultJsonParser = app.getDefaultJsonParser('error', 'error');
  // JSON only: any other body type answers UNSUPPORTED_MEDIA_TYPE (hosted-page forms add their own
  // parser in their own scope).
  app.removeAllContentTypeParsers();
  app.addContentTypeParser('application/json', { parseAs: 'string' }, (request, body, done) => {
    if (typeof body === 'string' && body.trim() === '') {
      done(null, undefined);
      return;
    }
    defaultJsonParser(request, body as string, (error, value) => {
      done(error ? new AppError('WRONG_PARAMETER', 'body is not valid JSON') : null, value);
    });
  });
  // Any other content type: an empty body is "no body" too (clients and proxies send
  // `text/plain` or a form type on a bodyless POST such as expire or release); anything else is 415.
  app.addContentTypeParser('*', { parseAs: 'string' }, (_request, body, done) => {
    if (typeof body === 'string' && body.length === 0) {
      done(null, undefined);
      return;
    }
    done(new AppError('UNSUPPORTED_MEDIA_TYPE', 'The request body must be JSON (Content-Type: application/json)'), undefined);
  });

  app.setErrorHandler((error, request, reply) => {
    const appError = toAppError(error);
    if (isExpected(appError)) {
      request.log.info({ errorCode: appError.code }, appError.message);
    } else if (appError.code === 'SERVICE_UNAVAILABLE') {
      request.log.warn({ err: error, errorCode: appError.code }, 'database unavailable');
    } else {
      request.log.error({ err: error, errorCode: appError.code }, 'unhandled error');
    }
    return sendError(request, reply, appError);
  });

  app.setNotFoundHandler((request, reply) => sendError(request, reply, new AppError('NOT_FOUND', `No route ${request.method} ${request.url.split('?')[0]?.slice(0, 200) ?? ''}`)));

  // Callback style (no promise per request): every request passes here.
  app.addHook('onRequest', (request, reply, done) => {
    reply.header('Request-Id', request.id);
    done();
  });

  // Every answer a route can give is in the OpenAPI document: where a route takes a JSON body it
  // can answer 413 (over 1 MiB) and 415 (not JSON), and a POST of the merchant or admin API 409 for a reused
  // or busy Idempotency-Key. Added here once rather than on each route (found by the fuzzer).
  app.addHook('onRoute', (route) => {
    const schema = route.schema as { body?: unknown; hide?: boolean; response?: Record<string, unknown> } | undefined;
    const response = schema?.response;
    if (!response || schema.hide || schema.body === undefined) {
      return;
    }
    // Both the merchant and the admin API honour Idempotency-Key on every POST.
    const idempotent = route.method === 'POST' && (route.url.startsWith('/v1/') || route.url.startsWith('/admin/v1/'));
    const statuses = idempotent ? [409, 413, 415] : [413, 415];
    for (const status of statuses) {
      response[status] ??= { $ref: 'ErrorEnvelope#' };
    }
  });

  // PostgreSQL text and jsonb cannot hold U+0000: a NUL anywhere in the input is refused up front
  // (400 naming the field) instead of failing the query later (500). Found by the fuzzer.
  // The query is checked where the route reads one (a health check ignores its query string).
  app.addHook('preValidation', async (request) => {
    const query = request.routeOptions.schema?.querystring ? request.query : undefined;
    for (const [part, value] of [['params', request.params], ['query', query], ['body', request.body]] as const) {
      const field = findNulCharacter(value);
      if (field !== null) {
        throw wrongParameter(field === '' ? part : field, 'must not contain NUL characters');
      }
    }
  });
}

/** The path (`a.b[0]`) of the first string or key holding U+0000, '' for the value itself, or null. */
export function findNulCharacter(value: unknown): string | null {
  const pending: Array<[unknown, string]> = [[value, '']];
  for (let next = pending.pop(); next !== undefined; next = pending.pop()) {
    const [current, path] = next;
    if (typeof current === 'string') {
      if (current.includes('\u0000')) {
        return path;
      }
    } else if (Array.isArray(current)) {
      current.forEach((item, index) => pending.push([item, `${path}[${index}]`]));
    } else if (current !== null && typeof current === 'object') {
      for (const [key, item] of Object.entries(current)) {
        const child = path === '' ? key : `${path}.${key}`;
        if (key.includes('\u0000')) {
          return child.replaceAll('\u0000', '\\u0000');
        }
        pending.push([item, child]);
      }
    }
  }
  return null;
}

/**
 * Errors Fastify's router raises before any hook runs (an undecodable URL, a path parameter over
 * the router's length limit): answered as envelopes with a Request-Id like everything else.
 * Passed as the `frameworkErrors` option.
 */
export function frameworkErrorHandler(error: FastifyError, request: FastifyRequest, reply: FastifyReply): void {
  reply.header('Request-Id', request.id);
  const appError =
    error.code === 'FST_ERR_MAX_PARAM_LENGTH'
      ? new AppError('NOT_FOUND', 'No resource has an id that long')
      : error.code === 'FST_ERR_BAD_URL'
        ? new AppError('WRONG_PARAMETER', 'The URL is malformed (invalid percent-encoding)')
        : toAppError(error);
  request.log.info({ errorCode: appError.code }, appError.message);
  void sendError(request, reply, appError);
}

/**
 * Requests Node's HTTP parser rejects (malformed request line or headers, headers too large) never
 * reach Fastify; this answers them with an envelope instead of the framework's own JSON. Passed as
 * the `clientErrorHandler` option.
 */
export function clientErrorHandler(error: NodeJS.ErrnoException, socket: Socket): void {
  if (error.code === 'ECONNRESET' || socket.destroyed) {
    return;
  }
  const requestId = `req_${randomToken(12)}`;
  const message =
    error.code === 'HPE_HEADER_OVERFLOW'
      ? 'The request headers are too large'
      : error.code === 'ERR_HTTP_REQUEST_TIMEOUT'
        ? 'The request was not received in time'
        : 'The request is not valid HTTP';
  const body = JSON.stringify({ status: 'FAILED', errorCode: 'WRONG_PARAMETER', errorMessage: message, requestId });
  if (socket.writable) {
    socket.write(
      `HTTP/1.1 400 Bad Request\r\nConnection: close\r\nRequest-Id: ${requestId}\r\nContent-Type: application/json; charset=utf-8\r\n` +
        `Content-Length: ${Buffer.byteLength(body)}\r\n\r\n${body}`,
    );
  }
  socket.destroy(error);
}

export const statusOf = (code: ErrorCode): number => errorStatus[code];
