import assert from 'node:assert/strict';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, test } from 'node:test';
import { and, eq, sql } from 'drizzle-orm';
import { webhookDeliveries, webhookEndpoints } from '../../../src/db/schema/index.ts';
import { Worker } from '../../../src/jobs/worker.ts';
import { systemClock } from '../../../src/clock.ts';
import { createLogger } from '../../../src/logger.ts';
import { circuitBaseOpenMs, circuitThreshold, defaultFairnessLimits } from '../../../src/modules/webhooks/fairness.ts';
import { claimProbe, updateCircuit } from '../../../src/modules/webhooks/deferral.ts';
import { createTestContext, json, type TestContext, type TestMerchant } from '../../helpers/context.ts';
import { TestClock } from '../../helpers/clock.ts';
import { WebhookReceiver } from '../../helpers/webhook-receiver.ts';
import { createEndpoint, emitEvent } from '../../helpers/webhooks.ts';

/** Real time: the worker below runs on its own loop, as in production. */
class WallClock extends TestClock {
  override now(): Date {
    return new Date();
  }
}

/** A receiver that never answers (until closed, or told to `recover`): every request it gets stays in flight. */
async function startHangingReceiver(): Promise<{ url: string; received: () => number; recover: () => void; close: () => Promise<void> }> {
  let received = 0;
  let healthy = false;
  const server = http.createServer((request, response) => {
    received += 1;
    if (healthy) {
      request.resume();
      response.end('ok');
    }
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/hooks`,
    received: () => received,
    recover: () => {
      healthy = true;
    },
    close: async () => {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

/** Polls `condition` until it holds; fails (never hangs) after `limitMs`. Not a timing assertion: a guard. */
async function until(what: string, condition: () => Promise<boolean> | boolean, limitMs = 60_000): Promise<void> {
  const deadline = Date.now() + limitMs;
  while (!(await condition())) {
    if (Date.now() > deadline) {
      assert.fail(`gave up waiting for ${what}`);
    }
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

/**
 * Issue 18 item 1: one merchant's receivers that never answer, with a backlog bigger than the
 * fan-out lane, must not hold up another merchant's deliveries (a real worker, real loopback HTTP).
 */
describe('fair delivery: a merchant with hanging receivers does not delay another merchant', () => {
  let context: TestContext;
  let worker: Worker;
  const hanging: Array<Awaited<ReturnType<typeof startHangingReceiver>>> = [];
  let victimReceiver: WebhookReceiver;

  before(async () => {
    // The attempt timeout is longer than the test: every attacker attempt is still hanging at the end.
    context = await createTestContext({ env: { WEBHOOK_TIMEOUT_MS: '60000', JOB_LEASE_MS: '180000' }, clock: new WallClock() });
    worker = new Worker({ database: context.database, registry: context.platform.jobs, clock: systemClock, logger: createLogger({ level: 'silent' }), concurrency: 8, pollIntervalMs: 20, leaseMs: 180_000 });
    victimReceiver = await WebhookReceiver.start();
  });
  after(async () => {
    await Promise.all(hanging.map((receiver) => receiver.close()));
    await worker.stop();
    await victimReceiver.close();
    await context.close();
  });

  test('the victim’s events and test event arrive while every attacker delivery still hangs; the attacker holds at most its cap', { timeout: 180_000 }, async () => {
    const attacker = await context.createMerchant({ name: 'Attacker' });
    const victim: TestMerchant = await context.createMerchant({ name: 'Victim' });
    for (let index = 0; index < 3; index += 1) {
      const receiver = await startHangingReceiver();
      hanging.push(receiver);
      await createEndpoint(context, attacker, { url: receiver.url });
    }
    const victimEndpoint = await createEndpoint(context, victim, { url: victimReceiver.url() });
    // More attacker events than the fan-out lane holds (256 per worker), 3 attempts each.
    for (let index = 0; index < 300; index += 1) {
      await emitEvent(context, attacker, { data: { index } });
    }
    await worker.start();
    const hangingNow = () => hanging.reduce((total, receiver) => total + receiver.received(), 0);
    await until('the attack to saturate its cap', () => hangingNow() >= defaultFairnessLimits.perMerchant);

    const victimEvents: Array<{ id: string }> = [];
    for (let index = 0; index < 5; index += 1) {
      victimEvents.push(await emitEvent(context, victim, { data: { victim: index } }));
    }
    const testEvent = await context.request({ method: 'POST', url: `/v1/webhook_endpoints/${victimEndpoint.id}/test`, apiKey: victim.apiKey, body: { eventType: 'PAYMENT_SUCCEEDED' } });
    assert.equal(testEvent.statusCode, 200, testEvent.body);
    const testEventId = json<{ data: { event: { id: string } } }>(testEvent).data.event.id;

    const arrived = () => new Set(victimReceiver.requests.map((request) => String(request.headers['webhook-id'])));
    await until('the victim’s deliveries', () => [...victimEvents.map((event) => event.id), testEventId].every((id) => arrived().has(id)));

    // Every attacker request is still unanswered (their receivers never answer), and there are no
    // more of them than the merchant's cap: the rest were deferred instead of holding a slot.
    const attackerInFlight = hangingNow();
    assert.ok(attackerInFlight >= defaultFairnessLimits.perMerchant, `${attackerInFlight} attacker requests hanging`);
    assert.ok(attackerInFlight <= defaultFairnessLimits.perMerchant, `${attackerInFlight} attacker requests in flight, cap ${defaultFairnessLimits.perMerchant}`);
    const [deferred] = await context.database.db
      .select({ count: sql<number>`count(*)::int` })
      .from(webhookDeliveries)
      .where(and(eq(webhookDeliveries.merchantId, attacker.id), eq(webhookDeliveries.status, 'PENDING'), eq(webhookDeliveries.attemptCount, 0)));
    assert.ok((deferred?.count ?? 0) > 0, 'attacker deliveries were deferred to the retry lane');
    await until('the victim’s deliveries to be recorded', async () => {
      const rows = await context.database.db.select({ status: webhookDeliveries.status }).from(webhookDeliveries).where(eq(webhookDeliveries.merchantId, victim.id));
      return rows.length === 6 && rows.every((row) => row.status === 'SUCCEEDED');
    });
  });
});

describe('circuit breaker: an endpoint that keeps timing out stops being tried until its back-off ends', () => {
  let context: TestContext;
  let receiver: Awaited<ReturnType<typeof startHangingReceiver>>;
  let merchant: TestMerchant;

  before(async () => {
    context = await createTestContext({ env: { WEBHOOK_TIMEOUT_MS: '300' } });
    receiver = await startHangingReceiver();
    merchant = await context.createMerchant();
  });
  after(async () => {
    await receiver.close();
    await context.close();
  });

  test(`${circuitThreshold} timeouts in a row open the circuit (state in the database); then deliveries wait without a request; one probe after the back-off`, async () => {
    const endpoint = await createEndpoint(context, merchant, { url: receiver.url });
    for (let index = 0; index < circuitThreshold; index += 1) {
      await emitEvent(context, merchant, { data: { index } });
      await context.drainJobs();
    }
    assert.equal(receiver.received(), circuitThreshold);
    const [state] = await context.database.db.select().from(webhookEndpoints).where(eq(webhookEndpoints.id, endpoint.id));
    assert.equal(state?.consecutiveTimeouts, circuitThreshold);
    assert.ok(state?.circuitOpenUntil && state.circuitOpenUntil.getTime() > context.clock.now().getTime(), 'open');

    // While open: a new event's delivery is written PENDING, with no request made.
    const waiting = await emitEvent(context, merchant, { data: { waiting: true } });
    await context.drainJobs();
    assert.equal(receiver.received(), circuitThreshold, 'no request while the circuit is open');
    const [delivery] = await context.database.db.select().from(webhookDeliveries).where(eq(webhookDeliveries.eventId, waiting.id));
    assert.equal(delivery?.status, 'PENDING');
    assert.equal(delivery?.attemptCount, 0);

    // After the back-off: the deliveries due then (the first ones' retries) wake, and
    // exactly one is sent as the probe; it times out too, so the circuit opens for longer.
    context.clock.advance((state?.circuitOpenUntil?.getTime() ?? 0) - context.clock.now().getTime() + 6_000);
    await context.drainJobs();
    assert.equal(receiver.received(), circuitThreshold + 1, 'one probe');
    const [after] = await context.database.db.select().from(webhookEndpoints).where(eq(webhookEndpoints.id, endpoint.id));
    assert.equal(after?.consecutiveTimeouts, circuitThreshold + 1);
    assert.ok((after?.circuitOpenUntil?.getTime() ?? 0) - context.clock.now().getTime() > 30_000, 'open for longer');

    // A new URL (the merchant fixed it) closes the circuit; the parked delivery is handed back by the
    // endpoint's unpark job and delivered, as are the retries.
    receiver.recover();
    const updated = await context.request({ method: 'POST', url: `/v1/webhook_endpoints/${endpoint.id}`, apiKey: merchant.apiKey, body: { url: `${receiver.url}?fixed=1` } });
    assert.equal(updated.statusCode, 200, updated.body);
    const [reset] = await context.database.db.select().from(webhookEndpoints).where(eq(webhookEndpoints.id, endpoint.id));
    assert.equal(reset?.consecutiveTimeouts, 0);
    assert.equal(reset?.circuitOpenUntil, null);
    for (let round = 0; round < 6; round += 1) {
      context.clock.advance(5 * 60_000);
      await context.drainJobs();
    }
    const [delivered] = await context.database.db.select().from(webhookDeliveries).where(eq(webhookDeliveries.eventId, waiting.id));
    assert.equal(delivered?.status, 'SUCCEEDED', 'the parked delivery went out once the endpoint was healthy');
    assert.equal(delivered?.parkedAt, null);
    const all = await context.database.db.select({ status: webhookDeliveries.status }).from(webhookDeliveries).where(eq(webhookDeliveries.endpointId, endpoint.id));
    assert.deepEqual(all.map((row) => row.status), all.map(() => 'SUCCEEDED'));
  });

  test('attempts in flight together that time out together open the circuit once; only a probe sent after it opened lengthens the back-off', async () => {
    const endpoint = await createEndpoint(context, merchant, { url: `${receiver.url}?burst=1` });
    const timedOut = { ok: false, statusCode: null, latencyMs: 5_000, responseBody: null, error: 'timeout: no complete answer within 5000 ms', retryAfter: undefined };
    const state = async () => (await context.database.db.select().from(webhookEndpoints).where(eq(webhookEndpoints.id, endpoint.id)))[0];
    const start = context.clock.now().getTime();
    // Ten attempts sent together (a receiver stalled with all of them in flight) are recorded one after another.
    for (let index = 0; index < 10; index += 1) {
      const row = await state();
      assert.ok(row);
      await context.database.transaction((tx) => updateCircuit(tx, row, timedOut, new Date(start + 5_000 + index * 10)));
    }
    const opened = await state();
    assert.equal(opened?.consecutiveTimeouts, circuitThreshold, 'counted up to the threshold, not once per attempt');
    const openedAt = start + 5_000 + (circuitThreshold - 1) * 10;
    assert.equal(opened?.circuitOpenUntil?.getTime(), openedAt + circuitBaseOpenMs, 'open for the first period');

    // After the period: the probe is sent, and its timeout doubles the next one.
    const probeAt = openedAt + circuitBaseOpenMs + 1_000;
    assert.ok(await claimProbe(context.database.db, endpoint.id, new Date(probeAt), 10_000), 'the probe is claimed');
    const probing = await state();
    assert.ok(probing);
    await context.database.transaction((tx) => updateCircuit(tx, probing, timedOut, new Date(probeAt + 5_000)));
    const lengthened = await state();
    assert.equal(lengthened?.consecutiveTimeouts, circuitThreshold + 1);
    assert.equal(lengthened?.circuitOpenUntil?.getTime(), probeAt + 5_000 + 2 * circuitBaseOpenMs);
  });
});
