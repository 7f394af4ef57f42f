import canonicalize from 'canonicalize';
import { and, eq, lt } from 'drizzle-orm';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { Database } from '../db/client.ts';
import { idempotencyKeys } from '../db/schema/index.ts';
import { sha256Hex } from '../crypto/hashing.ts';
import type { KeyRing } from '../crypto/keyring.ts';
import { AppError } from './errors.ts';
import type { Clock } from '../jobs/worker.ts';

declare module 'fastify' {
  interface FastifyRequest {
    idempotency?: { merchantId: string; livemode: boolean; key: string; replayed: boolean };
  }
}

export const idempotencyWindowMs = 24 * 60 * 60 * 1000;
/** How long an unfinished first request holds its key before a retry may run it again. */
const inProgressLeaseMs = 60_000;

function requestHash(request: FastifyRequest): string {
  const body = request.body === undefined ? '' : (canonicalize(request.body) ?? '');
  return sha256Hex(`${request.method}\n${request.url}\n${body}`);
}

function responseAssociatedData(record: { merchantId: string; livemode: boolean; key: string }): string {
  return `idempotency_keys|${record.merchantId}|${record.livemode}|${record.key}`;
}

/**
 * Idempotency-Key on every POST (contract §5): the first response (below 500) is stored and replayed
 * byte for byte for 24 h; a different request with the key → IDEMPOTENCY_KEY_REUSED; while the first
 * is still running → IDEMPOTENCY_KEY_IN_USE.
 *
 * Stored responses are sealed with the key ring: they can carry PII (a customer's e-mail), and no
 * plaintext PII may rest in the database. Keep a retired key in the ring for at least 24 hours.
 */
export function createIdempotencyHooks(deps: { database: Database; clock: Clock; keyRing: KeyRing }) {
  const { database, clock, keyRing } = deps;

  function openResponseBody(record: { merchantId: string; livemode: boolean; key: string }, stored: string | null): string {
    if (stored === null) {
      return '';
    }
    // Rows written before responses were sealed hold the JSON itself.
    return stored.startsWith('v1.') ? keyRing.decrypt(stored, responseAssociatedData(record)) : stored;
  }

  async function preHandler(request: FastifyRequest, reply: FastifyReply): Promise<FastifyReply | void> {
    const header = request.headers['idempotency-key'];
    if (request.method !== 'POST' || header === undefined || !request.auth) {
      return;
    }
    const key = Array.isArray(header) ? header[0] ?? '' : header;
    if (key.length < 1 || key.length > 255) {
      throw new AppError('WRONG_PARAMETER', 'Idempotency-Key must be 1-255 characters', { field: 'Idempotency-Key' });
    }
    const query = request.query as { livemode?: boolean } | undefined;
    const livemode = query?.livemode ?? true;
    const merchantId = request.auth.merchant.id;
    const hash = requestHash(request);
    const now = clock.now();
    const scope = and(eq(idempotencyKeys.merchantId, merchantId), eq(idempotencyKeys.livemode, livemode), eq(idempotencyKeys.key, key));

    // Forget records past the 24 h window, and first attempts that died without finishing.
    await database.db.delete(idempotencyKeys).where(and(scope, lt(idempotencyKeys.createdAt, new Date(now.getTime() - idempotencyWindowMs))));
    const inserted = await database.db
      .insert(idempotencyKeys)
      .values({ merchantId, livemode, key, requestHash: hash, state: 'in_progress', lockedUntil: new Date(now.getTime() + inProgressLeaseMs), createdAt: now })
      .onConflictDoNothing()
      .returning({ key: idempotencyKeys.key });
    if (inserted.length === 1) {
      request.idempotency = { merchantId, livemode, key, replayed: false };
      return;
    }
    const [existing] = await database.db.select().from(idempotencyKeys).where(scope);
    if (!existing) {
      throw new AppError('IDEMPOTENCY_KEY_IN_USE', 'A request with this Idempotency-Key is in progress; retry shortly');
    }
    if (existing.requestHash !== hash) {
      throw new AppError('IDEMPOTENCY_KEY_REUSED', 'This Idempotency-Key was already used with a different request');
    }
    if (existing.state === 'in_progress') {
      if (existing.lockedUntil.getTime() > now.getTime()) {
        throw new AppError('IDEMPOTENCY_KEY_IN_USE', 'A request with this Idempotency-Key is still in progress; retry shortly', {}, { 'Retry-After': '1' });
      }
      // The first attempt died without an answer: this retry takes the key over and runs again.
      const taken = await database.db
        .update(idempotencyKeys)
        .set({ lockedUntil: new Date(now.getTime() + inProgressLeaseMs) })
        .where(and(scope, eq(idempotencyKeys.state, 'in_progress'), eq(idempotencyKeys.lockedUntil, existing.lockedUntil)))
        .returning({ key: idempotencyKeys.key });
      if (taken.length === 0) {
        throw new AppError('IDEMPOTENCY_KEY_IN_USE', 'A request with this Idempotency-Key is still in progress; retry shortly', {}, { 'Retry-After': '1' });
      }
      request.idempotency = { merchantId, livemode, key, replayed: false };
      return;
    }
    request.idempotency = { merchantId, livemode, key, replayed: true };
    return reply
      .code(existing.responseStatus ?? 200)
      .header('Idempotent-Replayed', 'true')
      .type(existing.responseContentType ?? 'application/json; charset=utf-8')
      .send(openResponseBody({ merchantId, livemode, key }, existing.responseBody));
  }

  async function onSend(request: FastifyRequest, reply: FastifyReply, payload: unknown): Promise<unknown> {
    const record = request.idempotency;
    if (!record || record.replayed) {
      return payload;
    }
    const scope = and(eq(idempotencyKeys.merchantId, record.merchantId), eq(idempotencyKeys.livemode, record.livemode), eq(idempotencyKeys.key, record.key));
    if (reply.statusCode >= 500 || typeof payload !== 'string') {
      await database.db.delete(idempotencyKeys).where(and(scope, eq(idempotencyKeys.state, 'in_progress')));
      return payload;
    }
    await database.db
      .update(idempotencyKeys)
      .set({
        state: 'completed',
        responseStatus: reply.statusCode,
        responseBody: keyRing.encrypt(payload, responseAssociatedData(record)),
        responseContentType: String(reply.getHeader('content-type') ?? 'application/json; charset=utf-8'),
      })
      .where(and(scope, eq(idempotencyKeys.state, 'in_progress')));
    return payload;
  }

  return { preHandler, onSend };
}
