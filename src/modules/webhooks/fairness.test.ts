import assert from 'node:assert/strict';
import { test } from 'node:test';
import { attemptTimeoutMs, circuitOpenMs, circuitState, circuitThreshold, DeliveryGate, isTimeout, spread, suspectTimeoutMs } from './fairness.ts';

test('the circuit opens at the threshold, for longer each time, at most 10 minutes', () => {
  assert.equal(circuitOpenMs(circuitThreshold - 1), null);
  assert.equal(circuitOpenMs(circuitThreshold), 30_000);
  assert.equal(circuitOpenMs(circuitThreshold + 1), 60_000);
  assert.equal(circuitOpenMs(circuitThreshold + 20), 10 * 60_000);
  const now = new Date(1_000_000);
  assert.equal(circuitState({ consecutiveTimeouts: circuitThreshold - 1, circuitOpenUntil: null }, now), 'closed');
  assert.equal(circuitState({ consecutiveTimeouts: circuitThreshold, circuitOpenUntil: new Date(now.getTime() + 1) }, now), 'open');
  assert.equal(circuitState({ consecutiveTimeouts: circuitThreshold, circuitOpenUntil: now }, now), 'half-open');
});

test('timeouts: what counts as one, and the shorter timeout of a suspect endpoint', () => {
  assert.equal(isTimeout({ statusCode: null, error: 'timeout: no complete answer within 15000 ms' }), true);
  assert.equal(isTimeout({ statusCode: null, error: 'connect ECONNREFUSED' }), false);
  assert.equal(isTimeout({ statusCode: 500, error: 'HTTP 500' }), false);
  assert.equal(attemptTimeoutMs({ consecutiveTimeouts: 0 }, 15_000), 15_000);
  assert.equal(attemptTimeoutMs({ consecutiveTimeouts: 1 }, 15_000), suspectTimeoutMs);
  assert.equal(attemptTimeoutMs({ consecutiveTimeouts: 1 }, 300), 300, 'never longer than configured');
  const from = new Date(0);
  assert.equal(spread(from, 2_000, 5_000, () => 0).getTime(), 2_000);
  assert.equal(spread(from, 2_000, 5_000, () => 0.999_999).getTime(), 4_999);
});

test('the gate: caps per endpoint and per merchant; a waiting attempt gets the slot a release frees', async () => {
  const gate = new DeliveryGate({ perEndpoint: 2, perMerchant: 3, slowAfterMs: 60_000, slowPerEndpoint: 1, slowPerMerchant: 1 });
  const a1 = await gate.acquire('we_a', 'mer_1');
  const a2 = await gate.acquire('we_a', 'mer_1');
  assert.ok(a1 && a2);
  let third: unknown = 'waiting';
  const waiting = gate.acquire('we_a', 'mer_1').then((slot) => (third = slot));
  const b1 = await gate.acquire('we_b', 'mer_1');
  assert.ok(b1, 'another endpoint of the merchant, under the merchant cap');
  let fourth: unknown = 'waiting';
  const merchantWaiting = gate.acquire('we_c', 'mer_1').then((slot) => (fourth = slot));
  assert.ok(await gate.acquire('we_z', 'mer_2'), 'another merchant is not affected');
  await new Promise((resolve) => setImmediate(resolve));
  assert.equal(third, 'waiting');
  assert.equal(fourth, 'waiting');
  a1.release();
  await waiting;
  assert.ok(third && third !== 'waiting', 'the endpoint slot went to the waiting attempt');
  b1.release();
  await merchantWaiting;
  assert.ok(fourth && fourth !== 'waiting');
  assert.equal(gate.inFlight('mer_1').inFlight, 3);
});

test('the gate: once attempts turn slow, the endpoint and the merchant are isolated (new attempts defer, waiting ones too)', async (t) => {
  // The gate's timers are unref'd (they never keep a process up): this one keeps the test's loop alive.
  const keepAlive = setInterval(() => undefined, 1_000);
  t.after(() => clearInterval(keepAlive));
  const gate = new DeliveryGate({ perEndpoint: 1, perMerchant: 10, slowAfterMs: 1, slowPerEndpoint: 1, slowPerMerchant: 2 });
  const hung = await gate.acquire('we_slow', 'mer_1');
  assert.ok(hung);
  const waiting = gate.acquire('we_slow', 'mer_1');
  assert.equal(await waiting, null, 'the waiting attempt defers when the one in flight turns slow');
  assert.equal(gate.isolated('we_slow', 'mer_1'), true);
  assert.equal(await gate.acquire('we_slow', 'mer_1'), null);
  const other = await gate.acquire('we_other', 'mer_1');
  assert.ok(other, 'one slow attempt does not isolate the merchant (cap 2)');
  while (!gate.isolated('we_third', 'mer_1')) {
    await new Promise((resolve) => setTimeout(resolve, 1));
  }
  assert.equal(await gate.acquire('we_third', 'mer_1'), null, 'two slow attempts isolate the whole merchant');
  assert.ok(await gate.acquire('we_x', 'mer_2'), 'not another merchant');
  hung.release();
  other.release();
  assert.equal(gate.isolated('we_slow', 'mer_1'), false, 'released: no longer isolated');
  assert.ok(await gate.acquire('we_slow', 'mer_1'));
});
