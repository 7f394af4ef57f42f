import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, describe, test } from 'node:test';
import { sql } from 'drizzle-orm';
import { generateKeySpec } from '../../src/crypto/keyring.ts';
import { openPostgres, queryRows, type Database } from '../../src/db/client.ts';
import { adminApiKey } from '../helpers/context.ts';
import { createPostgresTestDatabase, testDatabaseKind } from '../helpers/database.ts';
import { assertLedgerInvariants } from '../helpers/ledger.ts';
import { bankMethod, fullKyc } from '../helpers/payout-pages.ts';
import { cardBody, testCards } from '../helpers/payment-pages.ts';
import { WebhookReceiver } from '../helpers/webhook-receiver.ts';
import { ProcessGroup } from './processes.ts';
import { assertAcknowledgedEffects, type AcknowledgedOperation } from './acknowledged-effects.ts';
import {
  ApiClient,
  assertNoDuplicates,
  basicAuthorization,
  createMerchantThrough,
  eventually,
  findDuplicates,
  findRedisUrl,
  jobStatistics,
  startSmtpSink,
  unfinishedJobs,
} from './processes-support.ts';
import { startProxy, type RoundRobinProxy } from './proxy.ts';

/**
 * Scale-out: 2 API processes (`--role=api`) and 2 worker processes (`--role=worker`) on one
 * PostgreSQL database, behind a round-robin proxy, run the payout, payment, renewal and webhook
 * flows; then, from the database: every job ran once, every event was delivered, every e-mail sent,
 * nothing is duplicated, the ledger balances — and a per-key rate limit holds across both API
 * processes (shared through Redis).
 *
 * PostgreSQL only: several processes cannot share an embedded PGlite database (its data directory
 * has one owner, enforced by a lock file — test/e2e/main-process.test.ts covers that refusal).
 */

const payoutPages = 6;
const paymentPages = 6;
const subscriptions = 3;
/** The rate limit under test: low sustained rate, a burst larger than what one process alone receives. */
const rateLimitBurst = 60;
const rateLimitProbes = 100;

describe('scale-out: 2 API + 2 worker processes on PostgreSQL behind a round-robin proxy', { skip: testDatabaseKind !== 'postgres' ? 'PostgreSQL only (one process per PGlite data directory)' : false }, () => {
  const cleanups: Array<() => Promise<void>> = [];
  let group: ProcessGroup | undefined;
  after(async () => {
    group?.killAllNow();
    for (const cleanup of cleanups.reverse()) {
      await cleanup().catch(() => undefined);
    }
  });

  test('payout, payment, renewal and webhook flows: every job once, every event delivered, ledger balanced, shared rate limit', { timeout: 240_000 }, async (t) => {
    const created = await createPostgresTestDatabase();
    cleanups.push(() => created.drop());
    const database: Database = await openPostgres(created.url, { max: 2 });
    cleanups.push(() => database.close());
    const receiver = await WebhookReceiver.start();
    cleanups.push(() => receiver.close());
    const smtp = await startSmtpSink();
    cleanups.push(() => smtp.close());
    // Redis is required, as in test/http/common/rate-limit.test.ts: without it each process keeps a
    // bucket of its own, and the shared limit below would have nothing to prove.
    const redisUrl = await findRedisUrl();
    assert.ok(redisUrl, 'Redis must answer at REDIS_URL_FOR_TESTS or 127.0.0.1:6379 (the shared rate limit is part of this test)');

    group = new ProcessGroup({
      DATABASE_URL: created.url,
      ENCRYPTION_KEYS: generateKeySpec('scale1'),
      ADMIN_API_KEY: adminApiKey,
      SMTP_URL: smtp.url,
      SANDBOX_KYC_DELAY_MS: '300',
      SANDBOX_PAYOUT_DELAY_MS: '300',
      JOB_POLL_INTERVAL_MS: '200',
      WORKER_CONCURRENCY: '4',
      WEBHOOK_ALLOW_PRIVATE_TARGETS: 'true',
      RATE_LIMIT_PER_SECOND: '2',
      RATE_LIMIT_BURST: String(rateLimitBurst),
      REDIS_URL: redisUrl,
    });
    const apis = await group.add('api', 2);
    await group.add('worker', 2);
    const proxy: RoundRobinProxy = await startProxy(() => apis.map((api) => api.url));
    cleanups.push(() => proxy.close());
    await group.startAll();
    const processGroup = group;

    const merchant = await createMerchantThrough(proxy.url, adminApiKey, 'Scale Out');
    const client = new ApiClient(proxy.url, basicAuthorization(merchant.apiKey));
    const send = async (method: string, path: string, body?: unknown) => {
      const answer = await client.call(method, path, { ...(body !== undefined ? { body } : {}), idempotencyKey: randomUUID(), retryForMs: 30_000, retryRateLimited: true });
      assert.equal(answer.status, 200, `${method} ${path}: ${JSON.stringify(answer.body)}`);
      return answer.body.data as Record<string, unknown>;
    };

    const endpoint = await send('POST', '/v1/webhook_endpoints?livemode=false', { url: receiver.url() });
    const secret = String(endpoint.secret);
    // Every acknowledged operation: the events and e-mails it must have produced are derived from this list.
    const acknowledged: AcknowledgedOperation[] = [];

    // Payout pages: create → the customer confirms (sandbox helper) → KYC → rail → PROCESSED.
    const payoutIds: string[] = [];
    for (let index = 0; index < payoutPages; index += 1) {
      const page = await send('POST', '/v1/payout_pages?livemode=false', {
        amount: 1_000 + index,
        fundingCurrency: 'USDC',
        clientReferenceId: `scale-payout-${index}`,
        releaseMethod: 'AUTOMATIC',
        customer: { referenceId: `scale-payee-${index}`, email: `payee-${index}@example.com` },
      });
      payoutIds.push(String(page.id));
      acknowledged.push({ kind: 'createPayoutPage', id: String(page.id) });
      await send('POST', `/v1/test_helpers/payout_pages/${String(page.id)}/confirm?livemode=false`, { payoutMethod: bankMethod, kyc: fullKyc });
      acknowledged.push({ kind: 'confirmPayoutPage', id: String(page.id) });
    }

    // Payment pages paid with a test card.
    for (let index = 0; index < paymentPages; index += 1) {
      const page = await send('POST', '/v1/payment_pages?livemode=false', {
        amount: 2_500 + index,
        currency: 'USD',
        clientReferenceId: `scale-payment-${index}`,
        customer: { referenceId: `scale-buyer-${index}`, email: `buyer-${index}@example.com` },
      });
      const paid = await send('POST', `/v1/test_helpers/payment_pages/${String(page.id)}/pay?livemode=false`, cardBody(testCards.visaCredit));
      assert.equal(paid.status, 'PAID');
      acknowledged.push({ kind: 'createPaymentPage', id: String(page.id) }, { kind: 'payPaymentPage', id: String(page.id) });
    }

    // Subscriptions: paid first period, then one renewal through the sandbox renew operation.
    const subscriptionIds: string[] = [];
    for (let index = 0; index < subscriptions; index += 1) {
      const page = await send('POST', '/v1/payment_pages?livemode=false', {
        amount: 1_500,
        currency: 'USD',
        clientReferenceId: `scale-subscription-${index}`,
        customer: { referenceId: `scale-subscriber-${index}`, email: `subscriber-${index}@example.com` },
        subscription: { productId: 'prod_pro', interval: 'MONTH' },
      });
      const paid = await send('POST', `/v1/test_helpers/payment_pages/${String(page.id)}/pay?livemode=false`, cardBody(testCards.visaCredit));
      const subscriptionId = String(paid.subscriptionId);
      subscriptionIds.push(subscriptionId);
      acknowledged.push({ kind: 'createSubscription', id: String(page.id) }, { kind: 'paySubscription', id: String(page.id) });
      const renewed = await send('POST', `/v1/test_helpers/subscriptions/${subscriptionId}/renew?livemode=false`);
      assert.equal(renewed.status, 'ACTIVE');
      acknowledged.push({ kind: 'renewSubscription', id: subscriptionId });
    }

    const diagnose = async () => `${JSON.stringify(await unfinishedJobs(database))}\n${processGroup.logs()}`;
    await eventually(
      'every payout page is PROCESSED',
      async () => {
        const rows = await queryRows<{ status: string }>(database.db, sql`select status from payout_pages where merchant_id = ${merchant.id}`);
        return rows.length === payoutPages && rows.every((row) => row.status === 'PROCESSED');
      },
      60_000,
      diagnose,
    );
    await eventually('every due job has finished', async () => (await unfinishedJobs(database)).length === 0, 60_000, diagnose);
    await eventually(
      'every event has a succeeded delivery',
      async () => {
        const [row] = await queryRows<{ pending: number }>(
          database.db,
          sql`select count(*)::int as pending from events e where not exists (select 1 from webhook_deliveries d where d.event_id = e.id and d.status = 'SUCCEEDED')`,
        );
        return row?.pending === 0;
      },
      60_000,
      diagnose,
    );

    // Every job ran exactly once: one claim each, none dead, none left behind.
    const statistics = await jobStatistics(database);
    t.diagnostic(`jobs: ${JSON.stringify(statistics)}`);
    const retried = await queryRows<{ queue: string; attempts: number; lastError: string | null }>(
      database.db,
      sql`select queue, attempts, last_error as "lastError" from jobs where attempts > 1`,
    );
    assert.deepEqual(retried, [], 'no job was claimed twice (two workers never ran one job both)');
    assert.deepEqual(await unfinishedJobs(database), [], 'nothing due is left, nothing dead');
    const workersUsed = await queryRows<{ lockedBy: string }>(database.db, sql`select distinct locked_by as "lockedBy" from jobs where locked_by is not null`);
    t.diagnostic(`jobs were run by ${workersUsed.length} worker instances`);
    const workerPids = new Set(processGroup.byRole('worker').map((worker) => String(worker.pid)));
    assert.deepEqual(
      workersUsed.filter((row) => !workerPids.has(row.lockedBy.split(':')[1] ?? '')),
      [],
      'jobs ran in the worker processes only (workers are `hostname:pid:token`)',
    );

    // Business results.
    const entitlements = await queryRows<{ subscriptionId: string; periods: number }>(
      database.db,
      sql`select subscription_id as "subscriptionId", count(*)::int as periods from entitlements group by subscription_id order by subscription_id`,
    );
    assert.deepEqual(
      entitlements.map((row) => row.periods),
      subscriptionIds.map(() => 2),
      'each subscription has the first period and the renewal',
    );
    assertNoDuplicates(await findDuplicates(database));
    const ledger = await assertLedgerInvariants(database);
    // The events and e-mails the acknowledged operations must have produced: each recorded once and delivered.
    const effects = await assertAcknowledgedEffects(database, { merchantId: merchant.id, operations: acknowledged, receiver, secret, mails: smtp.received });
    t.diagnostic(`ledger ${JSON.stringify(ledger)}; ${effects.events} events delivered (${effects.webhookDuplicates} duplicate copies); ${effects.emails} e-mails (${effects.emailDuplicates} duplicates)`);

    // Both API processes served the flows (round robin).
    const served = new Set<string>();
    for (let probe = 0; probe < 4; probe += 1) {
      served.add(String((await client.call('GET', '/v1/balance?livemode=false', { retryRateLimited: true, retryForMs: 10_000 })).upstream));
    }
    assert.equal(served.size, 2, 'the proxy spreads requests over both API processes');

    // The per-key rate limit is one bucket across both API processes (Redis), not one per process:
    // each process alone receives fewer requests than the burst, so only a shared bucket answers 429.
    const probe = await createMerchantThrough(proxy.url, adminApiKey, 'Rate Probe');
    const outcomes = new Map<string, { ok: number; limited: number }>();
    for (let index = 0; index < rateLimitProbes; index += 1) {
      const api = apis[index % apis.length];
      assert.ok(api);
      const response = await fetch(`${api.url}/v1/balance?livemode=false`, { headers: { authorization: basicAuthorization(probe.apiKey) } });
      const body = (await response.json()) as { errorCode?: string };
      const tally = outcomes.get(api.name) ?? { ok: 0, limited: 0 };
      if (response.status === 429) {
        assert.equal(body.errorCode, 'RATE_LIMITED');
        assert.ok(response.headers.get('retry-after'), 'a 429 says when to retry');
        tally.limited += 1;
      } else {
        assert.equal(response.status, 200);
        tally.ok += 1;
      }
      outcomes.set(api.name, tally);
    }
    t.diagnostic(`rate limit (burst ${rateLimitBurst}, ${rateLimitProbes} requests split over 2 processes, Redis ${redisUrl}): ${JSON.stringify(Object.fromEntries(outcomes))}`);
    for (const [name, tally] of outcomes) {
      assert.ok(tally.limited > 0, `${name} answered 429 once the shared bucket was empty`);
    }
    const allowed = [...outcomes.values()].reduce((sum, tally) => sum + tally.ok, 0);
    assert.ok(allowed < rateLimitProbes, 'fewer requests were allowed than one bucket per process would allow');

    const exits = await processGroup.stopAll('SIGTERM');
    assert.ok(
      exits.every((exit) => exit.code === 0),
      `every process shut down cleanly: ${JSON.stringify(exits)}\n${processGroup.logs()}`,
    );
  });
});
