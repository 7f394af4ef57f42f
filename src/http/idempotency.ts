import canonicalize from 'canonicalize';
import { and, asc, count, eq, inArray, isNotNull, lt, sql } from 'drizzle-orm';
import type { FastifyReply, FastifyRequest, HookHandlerDoneFunction } from 'fastify';
import type { Database, Executor } from '../db/client.ts';
import { runWithCommitGuard } from '../db/commit-guard.ts';
import { idempotencyKeys } from '../db/schema/index.ts';
import { sha256Hex } from '../crypto/hashing.ts';
import type { KeyRing } from '../crypto/keyring.ts';
import { resealInBatches, resealValue, type ReencryptOptions } from '../crypto/rotation.ts';
import { AppError } from './errors.ts';
import type { Clock } from '../clock.ts';

declare module 'fastify' {
  interface FastifyRequest {
    idempotency?: IdempotencyClaim;
  }
}

interface IdempotencyClaim {
  merchantId: string;
  livemode: boolean;
  key: string;
  replayed: boolean;
  lockedUntil?: Date;
  /** Until the answer is on its way: transactions started later (after-commit work) are not the request's. */
  open: boolean;
}

/**
 * Whose keys these are. API requests: the authenticated merchant and the request's mode. The admin
 * API: one operator scope (`admin`, live), since there is one admin key.
 */
export type IdempotencyScope = (request: FastifyRequest) => { merchantId: string; livemode: boolean } | undefined;

export const merchantIdempotencyScope: IdempotencyScope = (request) => {
  if (!request.auth) {
    return undefined;
  }
  const query = request.query as { livemode?: boolean } | undefined;
  return { merchantId: request.auth.merchant.id, livemode: query?.livemode ?? true };
};

export const adminIdempotencyScope: IdempotencyScope = () => ({ merchantId: 'admin', livemode: true });

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
 * Idempotency-Key on every POST (docs/API.md §5): the first response (below 500) is stored and replayed
 * byte for byte for 24 h; a different request with the key → IDEMPOTENCY_KEY_REUSED; while the first
 * is still running → IDEMPOTENCY_KEY_IN_USE.
 *
 * Exactly once, crashes included (docs/decisions/0004): every transaction the request runs marks its
 * key `committed` before COMMIT, conditional on still holding the key's lease (a commit guard), so
 * the request's effects and that mark commit together or not at all. The answer is stored just after;
 * a retry that finds a committed key without a stored answer (the process died in between) is never
 * run again: it gets IDEMPOTENCY_KEY_RESPONSE_LOST.
 *
 * Stored responses are sealed with the key ring: they can carry PII (a customer's e-mail), and no
 * plaintext PII may rest in the database. Keep a retired key in the ring for at least 24 hours.
 */
export function createIdempotencyHooks(deps: { database: Database; clock: Clock; keyRing: KeyRing; scope?: IdempotencyScope }) {
  const { database, clock, keyRing } = deps;
  const scopeOf = deps.scope ?? merchantIdempotencyScope;

  function openResponseBody(record: { merchantId: string; livemode: boolean; key: string }, stored: string | null): string {
    if (stored === null) {
      return '';
    }
    // Rows written before responses were sealed hold the JSON itself.
    return stored.startsWith('v1.') ? keyRing.decrypt(stored, responseAssociatedData(record)) : stored;
  }

  /** Claims the key, or answers from it (replay, or an error). Returns true when it answered. */
  async function claimKey(request: FastifyRequest, reply: FastifyReply): Promise<boolean> {
    const header = request.headers['idempotency-key'];
    const owner = request.method === 'POST' && header !== undefined ? scopeOf(request) : undefined;
    if (!owner || header === undefined) {
      return false;
    }
    const key = Array.isArray(header) ? header[0] ?? '' : header;
    if (key.length < 1 || key.length > 255) {
      throw new AppError('WRONG_PARAMETER', 'Idempotency-Key must be 1-255 characters', { field: 'Idempotency-Key' });
    }
    const { merchantId, livemode } = owner;
    const hash = requestHash(request);
    const now = clock.now();
    const scope = and(eq(idempotencyKeys.merchantId, merchantId), eq(idempotencyKeys.livemode, livemode), eq(idempotencyKeys.key, key));

    // Forget records past the 24 h window, and first attempts that died without finishing.
    await database.db.delete(idempotencyKeys).where(and(scope, lt(idempotencyKeys.createdAt, new Date(now.getTime() - idempotencyWindowMs))));
    const lockedUntil = new Date(now.getTime() + inProgressLeaseMs);
    let inserted: Array<{ key: string }>;
    try {
      inserted = await database.db
        .insert(idempotencyKeys)
        .values({ merchantId, livemode, key, requestHash: hash, state: 'in_progress', lockedUntil, createdAt: now })
        .onConflictDoNothing()
        .returning({ key: idempotencyKeys.key });
    } catch (error) {
      // The connection died: the claim may have committed without us hearing of it. Free it (only
      // ours: this exact lockedUntil) once the database is back, or retries wait out the lease.
      await writeSoon(async () => {
        await database.db.delete(idempotencyKeys).where(and(scope, eq(idempotencyKeys.state, 'in_progress'), eq(idempotencyKeys.lockedUntil, lockedUntil)));
      });
      throw error;
    }
    if (inserted.length === 1) {
      request.idempotency = { merchantId, livemode, key, replayed: false, lockedUntil, open: true };
      return false;
    }
    const [existing] = await database.db.select().from(idempotencyKeys).where(scope);
    if (!existing) {
      throw new AppError('IDEMPOTENCY_KEY_IN_USE', 'A request with this Idempotency-Key is in progress; retry shortly');
    }
    if (existing.requestHash !== hash) {
      throw new AppError('IDEMPOTENCY_KEY_REUSED', 'This Idempotency-Key was already used with a different request');
    }
    if (existing.state === 'committed' && existing.responseBody === null) {
      if (existing.lockedUntil.getTime() > now.getTime()) {
        // Committed a moment ago; its answer is being stored.
        throw new AppError('IDEMPOTENCY_KEY_IN_USE', 'A request with this Idempotency-Key is still in progress; retry shortly', {}, { 'Retry-After': '1' });
      }
      throw new AppError(
        'IDEMPOTENCY_KEY_RESPONSE_LOST',
        'The request with this Idempotency-Key was carried out, but the server stopped before storing its answer; it will not run again. Read the resource to see its outcome',
      );
    }
    if (existing.state === 'in_progress') {
      if (existing.lockedUntil.getTime() > now.getTime()) {
        throw new AppError('IDEMPOTENCY_KEY_IN_USE', 'A request with this Idempotency-Key is still in progress; retry shortly', {}, { 'Retry-After': '1' });
      }
      // The first attempt died without an answer: this retry takes the key over and runs again.
      const takenUntil = new Date(now.getTime() + inProgressLeaseMs);
      const taken = await database.db
        .update(idempotencyKeys)
        .set({ lockedUntil: takenUntil })
        .where(and(scope, eq(idempotencyKeys.state, 'in_progress'), eq(idempotencyKeys.lockedUntil, existing.lockedUntil)))
        .returning({ key: idempotencyKeys.key });
      if (taken.length === 0) {
        throw new AppError('IDEMPOTENCY_KEY_IN_USE', 'A request with this Idempotency-Key is still in progress; retry shortly', {}, { 'Retry-After': '1' });
      }
      request.idempotency = { merchantId, livemode, key, replayed: false, lockedUntil: takenUntil, open: true };
      return false;
    }
    request.idempotency = { merchantId, livemode, key, replayed: true, open: false };
    await reply
      .code(existing.responseStatus ?? 200)
      .header('Idempotent-Replayed', 'true')
      .type(existing.responseContentType ?? 'application/json; charset=utf-8')
      .send(openResponseBody({ merchantId, livemode, key }, existing.responseBody));
    return true;
  }

  /**
   * The commit guard of a claimed request: marks the key `committed` in the request's transaction,
   * only while this request still holds it (same lease). A request whose lease a retry took over
   * commits nothing.
   */
  function commitGuard(claim: IdempotencyClaim) {
    return {
      async beforeCommit(tx: Executor): Promise<void> {
        if (!claim.open || claim.lockedUntil === undefined) {
          return;
        }
        const marked = await tx
          .update(idempotencyKeys)
          .set({ state: 'committed' })
          .where(
            and(
              eq(idempotencyKeys.merchantId, claim.merchantId),
              eq(idempotencyKeys.livemode, claim.livemode),
              eq(idempotencyKeys.key, claim.key),
              inArray(idempotencyKeys.state, ['in_progress', 'committed']),
              eq(idempotencyKeys.lockedUntil, claim.lockedUntil),
            ),
          )
          .returning({ key: idempotencyKeys.key });
        if (marked.length === 0) {
          throw new AppError('IDEMPOTENCY_KEY_IN_USE', 'Another request took this Idempotency-Key over; nothing was changed', {}, { 'Retry-After': '1' });
        }
      },
    };
  }

  /**
   * Callback style on purpose: the handler must run inside the commit guard's async context, and a
   * context entered in an async hook does not reach the handler (body parsing already happened, so
   * nothing in between loses it).
   */
  function preHandler(request: FastifyRequest, reply: FastifyReply, done: HookHandlerDoneFunction): void {
    // Only a POST with the header claims a key: every other request goes on without a promise hop.
    if (request.method !== 'POST' || request.headers['idempotency-key'] === undefined) {
      done();
      return;
    }
    claimKey(request, reply).then(
      (answered) => {
        if (answered) {
          return;
        }
        const claim = request.idempotency;
        if (claim && !claim.replayed) {
          runWithCommitGuard(commitGuard(claim), () => done());
          return;
        }
        done();
      },
      (error: unknown) => done(error instanceof Error ? error : new Error(String(error))),
    );
  }

  async function onSend(request: FastifyRequest, reply: FastifyReply, payload: unknown): Promise<unknown> {
    const record = request.idempotency;
    if (!record || record.replayed) {
      return payload;
    }
    record.open = false;
    const scope = and(eq(idempotencyKeys.merchantId, record.merchantId), eq(idempotencyKeys.livemode, record.livemode), eq(idempotencyKeys.key, record.key));
    if (reply.statusCode >= 500 || typeof payload !== 'string') {
      // Only this attempt's claim (a later retry that took the key over holds another lockedUntil).
      const ours = record.lockedUntil ? [eq(idempotencyKeys.lockedUntil, record.lockedUntil)] : [];
      await writeSoon(async () => {
        // Nothing committed: the key is free for a retry.
        await database.db.delete(idempotencyKeys).where(and(scope, eq(idempotencyKeys.state, 'in_progress'), ...ours));
        // Something committed before the failure: it must not run again, and a retry is told so now.
        await database.db
          .update(idempotencyKeys)
          .set({ lockedUntil: new Date(0) })
          .where(and(scope, eq(idempotencyKeys.state, 'committed'), ...ours));
      });
      return payload;
    }
    const responseBody = keyRing.encrypt(payload, responseAssociatedData(record));
    const responseContentType = String(reply.getHeader('content-type') ?? 'application/json; charset=utf-8');
    await writeSoon(async () => {
      await database.db
        .update(idempotencyKeys)
        .set({ state: 'completed', responseStatus: reply.statusCode, responseBody, responseContentType })
        .where(and(scope, inArray(idempotencyKeys.state, ['in_progress', 'committed'])));
    });
    return payload;
  }

  /**
   * Runs a write to the key's record now; when the database is unreachable (a 503 answer, or an
   * outage between the request's commit and this write), keeps trying in the background until the
   * in-progress lease would free the key anyway, and lets the answer go out meanwhile. Without it a
   * retry with the same key was refused as IDEMPOTENCY_KEY_IN_USE for the whole lease, and then ran
   * the request a second time instead of replaying the stored answer.
   */
  async function writeSoon(write: () => Promise<void>): Promise<void> {
    try {
      await write();
    } catch {
      const giveUpAt = Date.now() + inProgressLeaseMs;
      const retry = (delayMs: number) => {
        setTimeout(() => {
          write().catch(() => {
            if (Date.now() + delayMs < giveUpAt) {
              retry(Math.min(delayMs * 2, 5_000));
            }
          });
        }, delayMs).unref();
      };
      retry(250);
    }
  }

  return { preHandler, onSend };
}

/**
 * Key-ring rotation: re-seals every stored response under the active key (same associated data),
 * and seals the plaintext responses of rows written before responses were sealed. Each UPDATE is
 * conditional on the value read (a concurrent write wins). Records leave after 24 h anyway, but the
 * old key can only go once none is left. `onProgress`: rows examined of all.
 */
export async function reencryptStoredResponses(deps: { database: Database; keyRing: KeyRing }, options: ReencryptOptions = {}): Promise<number> {
  const { database, keyRing } = deps;
  type Cursor = { merchantId: string; livemode: boolean; key: string };
  return resealInBatches({
    ...options,
    count: async () => (await database.db.select({ total: count() }).from(idempotencyKeys).where(isNotNull(idempotencyKeys.responseBody)))[0]?.total ?? 0,
    readBatch: (after: Cursor | undefined, limit: number) =>
      database.db
        .select({ merchantId: idempotencyKeys.merchantId, livemode: idempotencyKeys.livemode, key: idempotencyKeys.key, responseBody: idempotencyKeys.responseBody })
        .from(idempotencyKeys)
        .where(
          and(
            isNotNull(idempotencyKeys.responseBody),
            after === undefined ? undefined : sql`(${idempotencyKeys.merchantId}, ${idempotencyKeys.livemode}, ${idempotencyKeys.key}) > (${after.merchantId}, ${after.livemode}, ${after.key})`,
          ),
        )
        .orderBy(asc(idempotencyKeys.merchantId), asc(idempotencyKeys.livemode), asc(idempotencyKeys.key))
        .limit(limit),
    cursorOf: (row) => ({ merchantId: row.merchantId, livemode: row.livemode, key: row.key }),
    reseal: async (row) => {
      if (row.responseBody === null) {
        return false;
      }
      const associatedData = responseAssociatedData(row);
      const resealed = row.responseBody.startsWith('v1.') ? resealValue(keyRing, row.responseBody, associatedData) : keyRing.encrypt(row.responseBody, associatedData);
      if (resealed === null) {
        return false;
      }
      const updated = await database.db
        .update(idempotencyKeys)
        .set({ responseBody: resealed })
        .where(and(eq(idempotencyKeys.merchantId, row.merchantId), eq(idempotencyKeys.livemode, row.livemode), eq(idempotencyKeys.key, row.key), eq(idempotencyKeys.responseBody, row.responseBody)))
        .returning({ key: idempotencyKeys.key });
      return updated.length > 0;
    },
  });
}

/**
 * Erasure (`POST /v1/customers/:id/erase`): the stored answers of this merchant that mention any of
 * `ids` (the customer's create and update answers carry their PII; a payout page's, its e-mail) lose
 * their body. The key stays used: a retry with it answers IDEMPOTENCY_KEY_RESPONSE_LOST and never
 * runs the request again. Runs in the erase transaction; stored answers live 24 hours, so this
 * opens at most a day of the merchant's answers.
 */
export async function forgetStoredAnswersMentioning(tx: Executor, keyRing: KeyRing, merchantId: string, ids: readonly string[]): Promise<number> {
  const rows = await tx
    .select({ livemode: idempotencyKeys.livemode, key: idempotencyKeys.key, responseBody: idempotencyKeys.responseBody })
    .from(idempotencyKeys)
    .where(and(eq(idempotencyKeys.merchantId, merchantId), isNotNull(idempotencyKeys.responseBody)));
  let forgotten = 0;
  for (const row of rows) {
    const stored = row.responseBody ?? '';
    const body = stored.startsWith('v1.') ? keyRing.decrypt(stored, responseAssociatedData({ merchantId, livemode: row.livemode, key: row.key })) : stored;
    if (ids.some((id) => body.includes(id))) {
      await tx
        .update(idempotencyKeys)
        .set({ state: 'committed', responseBody: null, responseStatus: null, responseContentType: null })
        .where(and(eq(idempotencyKeys.merchantId, merchantId), eq(idempotencyKeys.livemode, row.livemode), eq(idempotencyKeys.key, row.key)));
      forgotten += 1;
    }
  }
  return forgotten;
}
