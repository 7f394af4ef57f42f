import assert from 'node:assert/strict';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, test } from 'node:test';
import { createTestContext, type TestContext, type TestMerchant } from '../../helpers/context.ts';
import { assertVerified, receiverPool } from '../../helpers/webhook-receiver.ts';
import { fanoutFlushAfterMs } from '../../../src/modules/webhooks/delivery.ts';
import { createEndpoint, deliveriesOf, emitEvent } from '../../helpers/webhooks.ts';

/**
 * The fan-out runs as batches (one claim, one read, one write for many events): these check that a
 * batch records exactly what per-event fan-out did, and that one slow receiver in a batch does not
 * hold up the others' bookkeeping.
 */
describe('webhook fan-out in batches (e2e: real HTTP to loopback receivers)', () => {
  let context: TestContext;
  const receivers = receiverPool();

  // What these check is the batches' bookkeeping, not timing: the attempt timeout and the time after
  // which an attempt counts as slow are long, so a loaded machine (this process given a fraction of a
  // core while 80 attempts run at once) neither times an attempt out nor makes the fairness gate
  // isolate the merchant and defer its attempts to a retry the drain does not reach (the fairness
  // tests cover that). The slow receiver of the second test answers when the test says so.
  before(async () => {
    context = await createTestContext({ env: { WEBHOOK_TIMEOUT_MS: '60000', WEBHOOK_SLOW_ATTEMPT_MS: '60000', JOB_LEASE_MS: '120000' } });
  });
  after(async () => {
    await context.close();
    await receivers.closeAll();
  });

  test('one drain fans 40 events out to two endpoints: each delivery written once with its first attempt; failures get their retry', async () => {
    const merchant: TestMerchant = await context.createMerchant();
    const healthy = await receivers.start();
    const failing = await receivers.start();
    // A NUL in the answer cannot be stored as text: it is replaced, and the batch still commits.
    failing.answer = () => ({ status: 500, body: 'broken\u0000answer' });
    const good = await createEndpoint(context, merchant, { url: healthy.url() });
    const bad = await createEndpoint(context, merchant, { url: failing.url() });
    const eventIds: string[] = [];
    for (let index = 0; index < 40; index += 1) {
      eventIds.push((await emitEvent(context, merchant, { data: { index } })).id);
    }
    await context.drainJobs();

    assert.equal(healthy.requests.length, 40);
    assert.equal(failing.requests.length, 40);
    assert.deepEqual(new Set(healthy.requests.map((request) => assertVerified(request, good.secret).id)), new Set(eventIds));
    const succeeded = await deliveriesOf(context, merchant, `endpointId=${good.id}&limit=100`);
    const pending = await deliveriesOf(context, merchant, `endpointId=${bad.id}&limit=100`);
    assert.equal(succeeded.length, 40);
    assert.equal(pending.length, 40);
    for (const delivery of succeeded) {
      assert.equal(delivery.status, 'SUCCEEDED');
      assert.equal(delivery.attemptCount, 1);
      assert.deepEqual(
        delivery.attempts.map((attempt) => [attempt.number, attempt.outcome, attempt.statusCode]),
        [[1, 'SUCCEEDED', 200]],
      );
    }
    for (const delivery of pending) {
      assert.equal(delivery.status, 'PENDING');
      assert.equal(delivery.attemptCount, 1);
      assert.equal(delivery.lastStatusCode, 500);
      assert.ok(delivery.nextAttemptAt !== null && delivery.nextAttemptAt > context.clock.now().getTime());
      assert.equal(delivery.attempts[0]?.responseBody, 'broken\ufffdanswer');
    }

    // The retries (5 s ± 10 %) succeed once the receiver recovers.
    failing.answer = () => ({ status: 200, body: 'ok' });
    context.clock.advance(6_000);
    await context.drainJobs();
    const retried = await deliveriesOf(context, merchant, `endpointId=${bad.id}&limit=100`);
    const unlike = retried.filter((delivery) => delivery.status !== 'SUCCEEDED' || delivery.attemptCount !== 2);
    assert.equal(failing.requests.length, 80, `not retried as expected: ${JSON.stringify(unlike)}`);
    assert.ok(retried.every((delivery) => delivery.status === 'SUCCEEDED' && delivery.attemptCount === 2));
    assert.equal(healthy.requests.length, 40, 'nothing was sent twice to the healthy endpoint');
  });

  /**
   * Six events claimed as one batch: five to a receiver that answers after `fastDelayMs`, one to a
   * receiver that answers only when told. The five are written while the sixth is still unanswered.
   */
  async function slowReceiverCase(fastDelayMs: number): Promise<void> {
    const merchant: TestMerchant = await context.createMerchant();
    const fast = await receivers.start();
    fast.answer = () => ({ status: 200, body: 'ok', delayMs: fastDelayMs });
    // The slow one answers only when the test says so.
    const held: http.ServerResponse[] = [];
    const slow = http.createServer((request, response) => {
      request.resume();
      request.on('end', () => held.push(response));
    });
    await new Promise<void>((resolve) => slow.listen(0, '127.0.0.1', resolve));
    try {
      const fastEndpoint = await createEndpoint(context, merchant, { url: fast.url(), enabledEvents: ['PAYMENT_SUCCEEDED'] });
      const slowEndpoint = await createEndpoint(context, merchant, { url: `http://127.0.0.1:${(slow.address() as AddressInfo).port}/hooks`, enabledEvents: ['PAYMENT_EXPIRED'] });
      for (let index = 0; index < 5; index += 1) {
        await emitEvent(context, merchant, { type: 'PAYMENT_SUCCEEDED', data: { index } });
      }
      await emitEvent(context, merchant, { type: 'PAYMENT_EXPIRED', data: { index: 5 } });

      const drained = context.drainJobs();
      // All six events are claimed as one batch; the five fast deliveries are written while the slow
      // request is still unanswered.
      const deadline = Date.now() + 50_000;
      let recorded = await deliveriesOf(context, merchant, `endpointId=${fastEndpoint.id}`);
      while (recorded.length < 5 && Date.now() < deadline) {
        await new Promise((resolve) => setTimeout(resolve, 25));
        recorded = await deliveriesOf(context, merchant, `endpointId=${fastEndpoint.id}`);
      }
      assert.equal(recorded.length, 5);
      assert.ok(recorded.every((delivery) => delivery.status === 'SUCCEEDED'));
      assert.equal(held.length, 1, 'the slow request is still waiting for its answer');
      assert.deepEqual(await deliveriesOf(context, merchant, `endpointId=${slowEndpoint.id}`), [], 'and its delivery is not written yet');

      const [response] = held;
      response?.writeHead(204).end();
      await drained;
      const slowDeliveries = await deliveriesOf(context, merchant, `endpointId=${slowEndpoint.id}`);
      assert.equal(slowDeliveries.length, 1);
      assert.equal(slowDeliveries[0]?.status, 'SUCCEEDED');
    } finally {
      slow.closeAllConnections();
      await new Promise<void>((resolve) => slow.close(() => resolve()));
    }
  }

  test('a slow receiver does not hold up the recording of the other deliveries of its batch', async () => {
    await slowReceiverCase(0);
  });

  // A receiver that answers after the first flush window (as every receiver may on a loaded machine) is
  // written in a later window, not held back until the slowest of the batch answers.
  test('deliveries answered after the first flush window are written before the slow one answers', async () => {
    await slowReceiverCase(3 * fanoutFlushAfterMs);
  });
});
