import { and, desc, eq, isNull, or, sql, type SQL } from 'drizzle-orm';
import { queryNamedRows, type Database } from '../../db/client.ts';
import { auditEvents, type AuditActorType, type AuditOutcome } from '../../db/schema/index.ts';
import { newId, idPrefixes } from '../../crypto/ids.ts';
import type { KeyRing } from '../../crypto/keyring.ts';
import type { Clock } from '../../clock.ts';
import type { AuditRecorder } from '../../http/audit.ts';
import type { Logger } from 'pino';
import { createBoundCursorCodecs, createdBetween, keysetPage, olderThan, type PagePosition } from '../../http/paging.ts';

/** What the HTTP layer knows about one state-changing request once it is answered. */
export type AuditEntry = Parameters<AuditRecorder['record']>[0];

/** A recorded entry as the log answers it: the entry with its id and time. */
export interface AuditEventView extends Omit<AuditEntry, 'outcome'> {
  id: string;
  outcome: AuditOutcome;
  createdAt: Date;
}

export interface AuditFilters {
  actorType?: AuditActorType | undefined;
  action?: string | undefined;
  createdFrom?: number | undefined;
  createdTo?: number | undefined;
}

export interface AuditPageInput extends AuditFilters {
  limit?: number | undefined;
  startingAfter?: string | undefined;
}

const loneSurrogate = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/g;

/**
 * Text as PostgreSQL stores it: ids and targets come from addresses, which may carry a NUL (refused by
 * `text`) or a lone surrogate. Each becomes U+FFFD, so the attempt is still recorded.
 */
function storable(value: string | null): string | null {
  return value === null ? null : value.replaceAll('\u0000', '\uFFFD').replace(loneSurrogate, '\uFFFD');
}

/** Rows per INSERT: a burst of actions is written in a few statements rather than one per request. */
const batchSize = 200;

type AuditRow = typeof auditEvents.$inferInsert;

/**
 * The rows as one JSON parameter of one statement text (a named prepared statement: PostgreSQL parses
 * and plans it once per connection, whatever the number of rows).
 */
function insertStatement(rows: readonly AuditRow[]): SQL {
  const json = JSON.stringify(
    rows.map((row) => ({
      id: row.id,
      merchant_id: row.merchantId ?? null,
      livemode: row.livemode ?? null,
      actor_type: row.actorType,
      actor_id: row.actorId,
      action: row.action,
      target: row.target ?? null,
      address: row.address,
      outcome: row.outcome,
      status_code: row.statusCode,
      error_code: row.errorCode ?? null,
      request_id: row.requestId,
      created_at: row.createdAt instanceof Date ? row.createdAt.toISOString() : row.createdAt,
    })),
  );
  return sql`insert into audit_events (id, merchant_id, livemode, actor_type, actor_id, action, target, address, outcome, status_code, error_code, request_id, created_at)
    select id, merchant_id, livemode, actor_type, actor_id, action, target, address, outcome, status_code, error_code, request_id, created_at
    from json_to_recordset(${json}::json) as r(id text, merchant_id text, livemode boolean, actor_type text, actor_id text, action text, target text,
      address text, outcome text, status_code integer, error_code text, request_id text, created_at timestamptz)`;
}

/**
 * The audit log (decision 0028). `record` queues a row and returns at once: the rows queued during
 * one turn of the event loop are written by one INSERT on the next, after the answers were sent;
 * rows queued while an INSERT is in flight wait for it and go together in the next one, so a busy
 * server writes its audit rows in a few statements rather than one per request.
 * A write that fails is logged (with the rows' ids and actions, no more) and not retried.
 */
export function createAuditLog(deps: { database: Database; clock: Clock; keyRing: KeyRing; logger: Logger }) {
  const { database, clock, logger } = deps;
  const cursors = createBoundCursorCodecs(deps.keyRing, 'audit_events');
  let queued: AuditRow[] = [];
  let inFlight: Promise<void> | null = null;
  let scheduled = false;

  async function write(rows: AuditRow[]): Promise<void> {
    for (let start = 0; start < rows.length; start += batchSize) {
      const batch = rows.slice(start, start + batchSize);
      try {
        await queryNamedRows(database.db, 'audit_events_insert', insertStatement(batch));
      } catch {
        // One row the database refuses must not take the others with it: row by row, once.
        for (const row of batch) {
          try {
            await queryNamedRows(database.db, 'audit_events_insert', insertStatement([row]));
          } catch (error) {
            logger.error({ err: error, auditEvent: `${row.id} ${row.action}` }, 'an audit event could not be written');
          }
        }
      }
    }
  }

  function scheduleDrain(): void {
    if (!scheduled) {
      scheduled = true;
      setImmediate(() => void drainQueue());
    }
  }

  /** Writes what is queued (after the write in flight, if any); resolves once it is written. */
  function drainQueue(): Promise<void> {
    scheduled = false;
    if (inFlight) {
      return inFlight.then(() => drainQueue());
    }
    if (queued.length === 0) {
      return Promise.resolve();
    }
    const rows = queued;
    queued = [];
    const current = write(rows).finally(() => {
      inFlight = null;
      if (queued.length > 0) {
        scheduleDrain();
      }
    });
    inFlight = current;
    return current;
  }

  function where(filters: AuditFilters, ...more: (SQL | undefined)[]): SQL | undefined {
    return and(
      ...(filters.actorType !== undefined ? [eq(auditEvents.actorType, filters.actorType)] : []),
      ...(filters.action !== undefined ? [eq(auditEvents.action, filters.action)] : []),
      ...createdBetween(auditEvents.createdAt, filters),
      ...more,
    );
  }

  /** A keyset page newest first; `scope` is the merchant's (and mode's) condition, or none for the operator. */
  async function page(scope: SQL | undefined, binding: Record<string, string | number | boolean | undefined>, input: AuditPageInput) {
    const filters = { actorType: input.actorType, action: input.action, createdFrom: input.createdFrom, createdTo: input.createdTo };
    return keysetPage<AuditEventView>({
      input,
      codec: cursors({ ...binding, ...filters }),
      isOwnId: (value) => value.startsWith(idPrefixes.auditEvent),
      find: async (id) => {
        const [row] = await database.db.select({ createdAt: auditEvents.createdAt, id: auditEvents.id }).from(auditEvents).where(where(filters, scope, eq(auditEvents.id, id)));
        return row ?? null;
      },
      fetch: (after: PagePosition | undefined, limit) =>
        database.db
          .select()
          .from(auditEvents)
          .where(where(filters, scope, after ? olderThan(auditEvents.createdAt, auditEvents.id, after) : undefined))
          .orderBy(desc(auditEvents.createdAt), desc(auditEvents.id))
          .limit(limit),
    });
  }

  return {
    record(entry: AuditEntry): void {
      const now = clock.now();
      queued.push({
        id: newId('auditEvent', now.getTime()),
        ...entry,
        merchantId: storable(entry.merchantId),
        actorId: storable(entry.actorId) ?? '',
        action: storable(entry.action) ?? '',
        target: storable(entry.target),
        errorCode: storable(entry.errorCode),
        createdAt: now,
      });
      scheduleDrain();
    },

    /** Writes what is queued and waits for every write so far (tests, shutdown). */
    flush(): Promise<void> {
      return drainQueue();
    },

    /** The operator's view: every merchant's events, or one merchant's (`merchantId`). */
    listAll(input: AuditPageInput & { merchantId?: string | undefined; livemode?: boolean | undefined }) {
      const scope = and(
        ...(input.merchantId !== undefined ? [eq(auditEvents.merchantId, input.merchantId)] : []),
        ...(input.livemode !== undefined ? [eq(auditEvents.livemode, input.livemode)] : []),
      );
      return page(scope, { merchantId: input.merchantId, livemode: input.livemode }, input);
    },

    /**
     * A merchant's view in one mode: its events of that mode, and those tied to no mode (the
     * operator's actions on the merchant, API actions that did not name a mode).
     */
    listForMerchant(merchantId: string, livemode: boolean, input: AuditPageInput) {
      const scope = and(eq(auditEvents.merchantId, merchantId), or(eq(auditEvents.livemode, livemode), isNull(auditEvents.livemode)));
      return page(scope, { merchantId, livemode }, input);
    },

    /** The distinct actions recorded for a merchant (the dashboard's action filter). */
    async actionsOf(merchantId: string): Promise<string[]> {
      const rows = await database.db.selectDistinct({ action: auditEvents.action }).from(auditEvents).where(eq(auditEvents.merchantId, merchantId)).orderBy(auditEvents.action).limit(200);
      return rows.map((row) => row.action);
    },
  };
}

export type AuditLog = ReturnType<typeof createAuditLog>;

