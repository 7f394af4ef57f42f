import assert from 'node:assert/strict';
import { test } from 'node:test';
import { maxDeliveryAttempts, maxRetryAfterMs, nextRetryDelayMs, parseRetryAfter, retryDelaysMs } from './retry.ts';

test('8 attempts: the schedule 5 s, 5 min, 30 min, 2 h, 5 h, 10 h, 10 h, then none', () => {
  assert.equal(maxDeliveryAttempts, 8);
  assert.deepEqual(retryDelaysMs, [5_000, 300_000, 1_800_000, 7_200_000, 18_000_000, 36_000_000, 36_000_000]);
  for (const [index, delay] of retryDelaysMs.entries()) {
    assert.equal(nextRetryDelayMs(index + 1, null, () => 0.5), delay);
    assert.equal(nextRetryDelayMs(index + 1, null, () => 0), Math.round(delay * 0.9));
    assert.equal(nextRetryDelayMs(index + 1, null, () => 1), Math.round(delay * 1.1));
  }
  assert.equal(nextRetryDelayMs(8, null), null);
});

test('Retry-After lengthens a wait, never shortens it, and is capped', () => {
  assert.equal(nextRetryDelayMs(1, 60_000, () => 0.5), 60_000);
  assert.equal(nextRetryDelayMs(1, 1_000, () => 0.5), 5_000);
  assert.equal(nextRetryDelayMs(1, 10 * 86_400_000, () => 0.5), maxRetryAfterMs);
  assert.equal(nextRetryDelayMs(8, 60_000), null, 'no attempt beyond the eighth');
});

test('Retry-After is read as seconds or an HTTP date', () => {
  const now = new Date('2026-01-01T00:00:00Z');
  assert.equal(parseRetryAfter('120', now), 120_000);
  assert.equal(parseRetryAfter(' 0 ', now), 0);
  assert.equal(parseRetryAfter('Thu, 01 Jan 2026 00:02:00 GMT', now), 120_000);
  assert.equal(parseRetryAfter('Wed, 31 Dec 2025 00:00:00 GMT', now), 0);
  assert.equal(parseRetryAfter('soon', now), null);
  assert.equal(parseRetryAfter(undefined, now), null);
});
