import type { FastifyReply, FastifyRequest } from 'fastify';
import type { AuditActorType } from '../db/schema/index.ts';

declare module 'fastify' {
  interface FastifyRequest {
    /** Set by the admin scope once the operator's bearer key was accepted. */
    isOperator?: boolean;
  }
}

/** The audit module's entry point as the HTTP layer sees it (src/modules/audit/service.ts). */
export interface AuditRecorder {
  record(entry: {
    merchantId: string | null;
    livemode: boolean | null;
    actorType: AuditActorType;
    actorId: string;
    action: string;
    target: string | null;
    address: string;
    outcome: 'SUCCEEDED' | 'FAILED';
    statusCode: number;
    errorCode: string | null;
    requestId: string;
  }): void;
}

export interface AuditActor {
  actorType: AuditActorType;
  actorId: string;
  merchantId: string | null;
}

/**
 * Reads that hand out secrets or personal data are recorded as actions too: the operator revealing a
 * merchant's PII keys, a customer's data export.
 */
export const auditedReads: ReadonlySet<string> = new Set(['adminPiiKeys_list', 'customers_export']);

/**
 * Refusals before the handler that attempted nothing: the rate limit (429) and load shedding or
 * shutdown (503). Recording them would let a flood write the audit log as fast as it sends.
 */
const unattempted = new Set([429, 503]);

const createdIdPattern = /^\{"status":"SUCCEEDED","data":\{"id":"([A-Za-z0-9_]{1,100})"/;
const livemodePattern = /"livemode":(true|false)/;
const errorCodePattern = /"errorCode":"([A-Z_]{1,60})"/;

/** The most specific id the address names: its last parameter (`/merchants/:merchantId/api_keys/:keyId/revoke` → the key). */
export function targetOf(params: unknown): string | null {
  if (params === null || typeof params !== 'object') {
    return null;
  }
  const values = Object.entries(params as Record<string, unknown>).filter(([name, value]) => name !== 'mode' && typeof value === 'string' && value !== '');
  const last = values[values.length - 1];
  return last ? String(last[1]).slice(0, 200) : null;
}

function booleanField(source: unknown, name: string): boolean | undefined {
  const value = source !== null && typeof source === 'object' ? (source as Record<string, unknown>)[name] : undefined;
  return typeof value === 'boolean' ? value : undefined;
}

function stringField(source: unknown, name: string): string | undefined {
  const value = source !== null && typeof source === 'object' ? (source as Record<string, unknown>)[name] : undefined;
  return typeof value === 'string' && value !== '' ? value.slice(0, 200) : undefined;
}

/**
 * One `onSend` hook per JSON API scope (`/v1`, `/admin/v1`): every non-GET request whose actor was
 * authenticated, and the reads in `auditedReads`, become one audit row after the answer. The action
 * is the route's `operationId`; the target its last path parameter, or, for a create, the id of
 * what it created (the answer's first field, read from the serialized answer: no body is kept).
 */
export function createAuditHook(audit: AuditRecorder, actorOf: (request: FastifyRequest) => AuditActor | null) {
  return function auditOnSend(request: FastifyRequest, reply: FastifyReply, payload: unknown, done: (error: null, payload: unknown) => void): void {
    const action = request.routeOptions.schema?.operationId;
    const isRead = request.method === 'GET' || request.method === 'HEAD';
    const actor = action === undefined || (isRead && !auditedReads.has(action)) || unattempted.has(reply.statusCode) ? null : actorOf(request);
    if (actor && action !== undefined) {
      const text = typeof payload === 'string' ? payload.slice(0, 4096) : '';
      const succeeded = reply.statusCode < 400;
      const target = targetOf(request.params) ?? (succeeded ? (createdIdPattern.exec(text)?.[1] ?? null) : null);
      const named = booleanField(request.query, 'livemode') ?? booleanField(request.body, 'livemode');
      const answered = succeeded ? livemodePattern.exec(text)?.[1] : undefined;
      const merchantId = actor.merchantId ?? stringField(request.params, 'merchantId') ?? stringField(request.body, 'merchantId') ?? (target?.startsWith('mer_') ? target : null);
      audit.record({
        merchantId,
        livemode: named ?? (answered === undefined ? null : answered === 'true'),
        actorType: actor.actorType,
        actorId: actor.actorId,
        action,
        target,
        address: request.ip,
        outcome: succeeded ? 'SUCCEEDED' : 'FAILED',
        statusCode: reply.statusCode,
        errorCode: succeeded ? null : (errorCodePattern.exec(text)?.[1] ?? null),
        requestId: String(request.id),
      });
    }
    done(null, payload);
  };
}
