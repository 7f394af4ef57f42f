import fc from 'fast-check';
import { sql } from 'drizzle-orm';
import type { LightMyRequestResponse } from 'fastify';
import { createTestContext, json, type TestContext } from '../helpers/context.ts';
import { createCustomer, completeKyc } from '../helpers/assertions.ts';
import { createPage as createPayoutPage } from '../helpers/payout-pages.ts';
import { createPage as createPaymentPage } from '../helpers/payment-pages.ts';
import { startSubscription } from '../helpers/subscriptions.ts';
import { createEndpoint } from '../helpers/webhooks.ts';
import { queryRows } from '../../src/db/client.ts';
import { errorStatus, type ErrorCode } from '../../src/http/errors.ts';
import type { IdKind } from '../../src/crypto/ids.ts';
import { createResponseValidator, listOperations, matchOperation, type DocumentedOperation, type OpenApiDocument } from './openapi.ts';
import { buildPlanArbitrary, type Pools } from './fuzz-arbitraries.ts';
import { buildRequest, type Actors, type BuiltRequest } from './fuzz-requests.ts';

/**
 * Schema-driven HTTP fuzzer. Every operation of the app's OpenAPI document gets requests built by
 * fast-check from its own schemas (path parameters, query, JSON body): valid values, mutated values
 * (wrong types, missing required fields, unknown keys, `__proto__`/`constructor` keys, huge and
 * hostile unicode strings, numeric edges, deep nesting, duplicate keys) and protocol abuse (wrong or
 * absent content types, malformed JSON, odd methods, mangled paths and queries, missing or foreign
 * credentials). Requests go in-process through `app.inject` against the real platform and database.
 *
 * Every answer is checked: no status ≥ 500; a JSON body with the Request-Id; the operation's
 * documented schema for that status (the error envelope when the request matches no operation),
 * with the error code's own status; and, for a sample of rejected hostile requests (one in
 * `writeCheckEvery`), that no table's rows changed: count and contents are compared before and after.
 * Generation is deterministic from the seed.
 */

export interface FuzzOptions {
  /** Requests to send. */
  runs: number;
  /** fast-check seed (printed in the summary; the same seed replays the same requests). */
  seed?: number;
  /** An existing context to fuzz (its database gets the fuzz data); default a fresh one, closed at the end. */
  context?: TestContext;
  /** Called every `progressEvery` requests. */
  onProgress?: (done: number, summary: FuzzSummary) => void;
  progressEvery?: number;
  /** Compare every table's rows (count and contents) around one rejected hostile request in this many (default 20). */
  writeCheckEvery?: number;
}

export interface FuzzFailure {
  request: string;
  category: string;
  status: number;
  problem: string;
  body: string;
}

export interface FuzzSummary {
  seed: number;
  requests: number;
  durationMs: number;
  /** CPU time of this process while sending (the machine is shared, so wall time varies). */
  cpuMs: number;
  /** Answers by HTTP status. */
  statuses: Record<string, number>;
  /** Requests by generator category (valid, a mutation, protocol abuse). */
  categories: Record<string, number>;
  /** Documented operations that received at least one request, of all documented operations. */
  operationsCovered: number;
  operationsTotal: number;
  /** Rejected hostile requests around which every table's rows (count and contents) were compared. */
  writeChecks: number;
  /** Requests that reached a 2xx (the generator also produces accepted input). */
  accepted: number;
  failureCount: number;
  /** The first failures (at most 50). */
  failures: FuzzFailure[];
}

// ---------------------------------------------------------------------------------------------
// The engine
/** Objects of every kind for the fuzzed merchant, so ids in generated requests exist (deeper paths run). */
async function seedObjects(context: TestContext): Promise<Actors> {
  const merchant = await context.createMerchant({ live: true, name: 'Fuzz merchant' });
  const foreign = await context.createMerchant({ name: 'Fuzz foreign merchant' });
  const pools: Pools = { merchant: [merchant.id, foreign.id] };
  const add = (kind: IdKind, id: unknown) => {
    if (typeof id === 'string') {
      (pools[kind] ??= []).push(id);
    }
  };
  for (const owner of [merchant, foreign]) {
    await context.request({ method: 'POST', url: '/v1/test_helpers/balance/fund?livemode=false', apiKey: owner.apiKey, body: { amount: 100_000_000, currency: 'USDC' } });
    add('customer', (await createCustomer(context, owner.apiKey, { ...completeKyc })).id);
    add('payoutPage', (await createPayoutPage(context, owner)).id);
    add('paymentPage', (await createPaymentPage(context, owner)).id);
    const { page, subscription } = await startSubscription(context, owner, { interval: 'MONTH' });
    add('paymentPage', page.id);
    add('payment', page.paymentId);
    add('subscription', subscription.id);
    add('webhookEndpoint', (await createEndpoint(context, owner, { url: 'http://127.0.0.1:9/hooks' })).id);
  }
  await context.admin('POST', `/admin/v1/merchants/${merchant.id}/balance/credit`, { amount: 100_000_000, currency: 'USDC' });
  add('payoutPage', (await createPayoutPage(context, merchant, {}, '?livemode=true')).id);
  const key = json<{ data: { id?: string; apiKey?: { id?: string } } }>(await context.admin('POST', `/admin/v1/merchants/${merchant.id}/api_keys`, {})).data;
  add('apiKey', key.id ?? key.apiKey?.id);
  await context.drainJobs();
  for (const owner of [merchant, foreign]) {
    const listed = json<{ data: { events?: Array<{ id: string }> } | Array<{ id: string }> }>(await context.request({ method: 'GET', url: '/v1/events?livemode=false', apiKey: owner.apiKey })).data;
    for (const event of (Array.isArray(listed) ? listed : (listed.events ?? [])).slice(0, 3)) {
      add('event', event.id);
    }
  }
  const deliveries = await queryRows<{ id: string }>(context.database.db, sql`select id from webhook_deliveries order by id limit 4`);
  for (const delivery of deliveries) {
    add('webhookDelivery', delivery.id);
  }
  const entitlements = await queryRows<{ id: string }>(context.database.db, sql`select id from entitlements order by id limit 2`);
  for (const entitlement of entitlements) {
    add('entitlement', entitlement.id);
  }
  return { merchant, foreign, pools };
}

export async function runFuzz(options: FuzzOptions): Promise<FuzzSummary> {
  const seed = options.seed ?? Date.now() % 2 ** 31;
  const ownsContext = options.context === undefined;
  const context = options.context ?? (await createTestContext({ env: { LOG_LEVEL: 'warn', RATE_LIMIT_PER_SECOND: '1000000', RATE_LIMIT_BURST: '1000000', AUTH_FAILURES_PER_SECOND: '1000000', AUTH_FAILURE_BURST: '1000000' } }));
  const started = Date.now();
  const summary: FuzzSummary = { seed, requests: 0, durationMs: 0, cpuMs: 0, statuses: {}, categories: {}, operationsCovered: 0, operationsTotal: 0, writeChecks: 0, accepted: 0, failureCount: 0, failures: [] };
  try {
    const document = context.app.swagger() as unknown as OpenApiDocument;
    const operations = listOperations(document);
    summary.operationsTotal = operations.length;
    const validate = createResponseValidator(document);
    const actors = await seedObjects(context);
    const cpuBefore = process.cpuUsage();
    const covered = new Set<string>();
    const tables = (await queryRows<{ table_name: string }>(context.database.db, sql`select table_name from information_schema.tables where table_schema = 'public' and table_type = 'BASE TABLE' order by table_name`))
      .map((row) => row.table_name)
      // Refused requests may legitimately write these: the stored answer of an Idempotency-Key and the job/log bookkeeping of the request itself.
      // The audit log records refused requests on purpose (decision 0028): checked on its own below, not in the digest.
      .filter((table) => !['idempotency_keys', '__drizzle_migrations', 'audit_events'].includes(table));
    // Each table's row count and an order-independent digest of its rows' contents (the sum of a
    // 64-bit hash of each row as JSON): an UPDATE, or a DELETE + INSERT that keeps the count, changes
    // it. Left out: api_keys.last_used_at, which any authenticated request may advance (advisory,
    // written off the request path at most once a minute), refused or not.
    const unwatchedColumns: Record<string, string[]> = { api_keys: ['last_used_at'] };
    const rowText = (table: string) => `(to_jsonb(t)${(unwatchedColumns[table] ?? []).map((column) => ` - '${column}'`).join('')})::text`;
    const countRows = async (): Promise<string> => {
      const rows = await queryRows<Record<string, string>>(
        context.database.db,
        sql.raw(`select ${tables.map((table) => `(select count(*)::text || ':' || coalesce(sum(hashtextextended(${rowText(table)}, 0)::numeric), 0)::text from "${table}" t) as "${table}"`).join(', ')}`),
      );
      return JSON.stringify(rows[0]);
    };

    const countAuditRows = async (): Promise<number> => Number((await queryRows<{ count: string }>(context.database.db, sql`select count(*)::text as count from audit_events`))[0]?.count ?? 0);

    const planArbitrary = buildPlanArbitrary(document, operations, actors.pools);
    const fail = (built: BuiltRequest, category: string, response: LightMyRequestResponse, problem: string) => {
      summary.failureCount += 1;
      if (summary.failures.length < 50) {
        summary.failures.push({ request: `${built.method} ${built.url.slice(0, 300)}`, category, status: response.statusCode, problem, body: response.body.slice(0, 500) });
      }
    };

    const batchSize = 250;
    let hostileCount = 0;

    for (let batch = 0; summary.requests < options.runs; batch += 1) {
      const plans = fc.sample(planArbitrary, { seed: seed + batch, numRuns: Math.min(batchSize, options.runs - summary.requests) });
      for (const plan of plans) {
        const built = buildRequest(document, operations, plan, actors);
        summary.categories[plan.kind] = (summary.categories[plan.kind] ?? 0) + 1;
        covered.add(`${built.operation.method} ${built.operation.path}`);
        hostileCount += built.hostile ? 1 : 0;
        const checkWrites = built.hostile && hostileCount % (options.writeCheckEvery ?? 20) === 0;
        // Audit rows land just after each answer: the previous request's first, so they are not counted as this one's.
        if (checkWrites) {
          await context.platform.services.audit.flush();
        }
        const before = checkWrites ? await countRows() : '';
        const auditBefore = checkWrites ? await countAuditRows() : 0;
        const response = await context.app.inject({ method: built.method as 'GET', url: built.url, headers: built.headers, ...(built.payload !== undefined ? { payload: built.payload } : {}) });
        summary.requests += 1;
        summary.statuses[response.statusCode] = (summary.statuses[response.statusCode] ?? 0) + 1;
        if (response.statusCode < 300) {
          summary.accepted += 1;
        }
        for (const problem of checkResponse(operations, validate, built, response)) {
          fail(built, plan.kind, response, problem);
        }
        // An accepted settings change may size a fuzzed merchant's limit down to 1/s: back to the
        // default, or the rest of the run answers 429 before validation (689 of 10,000 did).
        if (response.statusCode < 300 && built.operation.path === '/admin/v1/merchants/{merchantId}/settings') {
          for (const id of [actors.merchant.id, actors.foreign.id]) {
            await context.admin('POST', `/admin/v1/merchants/${id}/settings`, { rateLimitPerSecond: null, rateLimitBurst: null });
          }
        }
        if (checkWrites && response.statusCode >= 400 && response.statusCode !== 402) {
          summary.writeChecks += 1;
          const afterCounts = await countRows();
          if (afterCounts !== before) {
            fail(built, plan.kind, response, `a refused request changed rows (count:digest): ${diffCounts(before, afterCounts)}`);
          }
          // Its only trace: at most one audit row, of this very request, recorded as FAILED with its status.
          await context.platform.services.audit.flush();
          const recorded = await queryRows<{ outcome: string; status_code: number }>(context.database.db, sql`select outcome, status_code from audit_events where request_id = ${String(response.headers['request-id'])}`);
          const added = (await countAuditRows()) - auditBefore;
          if (added !== recorded.length || recorded.length > 1 || recorded.some((row) => row.outcome !== 'FAILED' || Number(row.status_code) !== response.statusCode)) {
            fail(built, plan.kind, response, `a refused request left audit rows other than its own FAILED one: ${added} added, ${JSON.stringify(recorded)}`);
          }
        }
        if (options.onProgress && summary.requests % (options.progressEvery ?? 1000) === 0) {
          summary.durationMs = Date.now() - started;
          options.onProgress(summary.requests, summary);
        }
      }
    }
    const cpu = process.cpuUsage(cpuBefore);
    summary.cpuMs = Math.round((cpu.user + cpu.system) / 1000);
    summary.operationsCovered = operations.filter((operation) => covered.has(`${operation.method} ${operation.path}`)).length;
    // Crashes log at error level (expected refusals log below it): none may have happened.
    const errorLines = context.logs.filter((line) => /"level":(5\d|60)/.test(line));
    for (const line of errorLines.slice(0, 5)) {
      summary.failureCount += 1;
      summary.failures.push({ request: 'log', category: 'log', status: 0, problem: 'an error-level log line', body: line.slice(0, 500) });
    }
  } finally {
    summary.durationMs = Date.now() - started;
    if (ownsContext) {
      await context.close();
    }
  }
  return summary;
}

function diffCounts(before: string, after: string): string {
  const a = JSON.parse(before) as Record<string, string>;
  const b = JSON.parse(after) as Record<string, string>;
  return Object.keys(b)
    .filter((table) => a[table] !== b[table])
    .map((table) => `${table} ${a[table]}→${b[table]}`)
    .join(', ');
}

/** Everything wrong with one answer (empty when it is right). */
function checkResponse(operations: DocumentedOperation[], validate: ReturnType<typeof createResponseValidator>, built: BuiltRequest, response: LightMyRequestResponse): string[] {
  const problems: string[] = [];
  const status = response.statusCode;
  if (status >= 500) {
    problems.push(`status ${status}`);
  }
  const requestId = String(response.headers['request-id'] ?? '');
  if (!/^req_/.test(requestId)) {
    problems.push('no Request-Id header');
  }
  if (built.method === 'HEAD') {
    return problems;
  }
  if (!String(response.headers['content-type'] ?? '').startsWith('application/json')) {
    problems.push(`content-type ${String(response.headers['content-type'])}`);
    return problems;
  }
  let body: unknown;
  try {
    body = JSON.parse(response.body);
  } catch {
    problems.push('the body is not JSON');
    return problems;
  }
  // As the client sends it: dot segments resolved, the fragment dropped.
  const urlPath = new URL(built.url, 'http://fuzz.invalid').pathname;
  const operation = matchOperation(operations, built.method, urlPath);
  if (status >= 400) {
    const envelope = body as { errorCode?: string; requestId?: string };
    if (envelope.requestId !== requestId) {
      problems.push('the envelope requestId differs from the header');
    }
    if (envelope.errorCode && errorStatus[envelope.errorCode as ErrorCode] !== status) {
      problems.push(`errorCode ${envelope.errorCode} answered with status ${status}`);
    }
  }
  const check = validate(operation, status, body);
  if (operation && !check.documented) {
    problems.push(`status ${status} is not documented for ${operation.method} ${operation.path}`);
  }
  if (!operation && status < 400) {
    problems.push(`a request matching no documented operation succeeded`);
  }
  for (const error of check.errors) {
    problems.push(`schema: ${error}`);
  }
  return problems;
}
