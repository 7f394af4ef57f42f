import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { after, before, describe, test } from 'node:test';
import { Redis } from 'ioredis';
import type { LightMyRequestResponse } from 'fastify';
import { createTestContext, type TestContext, type TestMerchant } from '../../helpers/context.ts';
import { assertError, assertSucceeded } from '../../helpers/assertions.ts';
import { createMemoryRateLimiter, createRedisRateLimiter } from '../../../src/http/rate-limit.ts';

const redisUrl = process.env.REDIS_URL_FOR_TESTS ?? 'redis://127.0.0.1:6379';
const burst = 4;
const limits = { RATE_LIMIT_PER_SECOND: '1', RATE_LIMIT_BURST: String(burst) };

function read(context: TestContext, apiKey: string): Promise<LightMyRequestResponse> {
  return context.request({ method: 'GET', url: `/v1/customers/cus_${'0'.repeat(36)}`, apiKey });
}

/** Sends until the first 429 (at most `max`); returns how many were let through and the 429. */
async function exhaust(send: () => Promise<LightMyRequestResponse>, max = 60): Promise<{ allowed: number; limited: LightMyRequestResponse | undefined; elapsedMs: number }> {
  const started = Date.now();
  let allowed = 0;
  for (let index = 0; index < max; index += 1) {
    const response = await send();
    if (response.statusCode === 429) {
      return { allowed, limited: response, elapsedMs: Date.now() - started };
    }
    allowed += 1;
  }
  return { allowed, limited: undefined, elapsedMs: Date.now() - started };
}

/** The most a token bucket may let through in `elapsedMs`: the burst plus what refilled meanwhile. */
const ceiling = (elapsedMs: number, rate = 1) => burst + Math.ceil((elapsedMs / 1000) * rate);

describe('rate limit, in process (contract §4)', () => {
  let context: TestContext;
  let merchant: TestMerchant;

  before(async () => {
    context = await createTestContext({ env: limits });
    merchant = await context.createMerchant();
  });
  after(async () => context.close());

  test('beyond the burst → 429 RATE_LIMITED envelope with Retry-After', async () => {
    const { allowed, limited, elapsedMs } = await exhaust(() => read(context, merchant.apiKey));
    assert.ok(allowed >= burst, `the full burst of ${burst} is served (got ${allowed})`);
    assert.ok(allowed <= ceiling(elapsedMs), `no more than the burst plus the refill (${allowed} in ${elapsedMs} ms)`);
    assert.ok(limited, 'a request beyond the burst is refused');
    const error = assertError(limited, 429, 'RATE_LIMITED');
    const retryAfter = Number(limited.headers['retry-after']);
    assert.ok(Number.isInteger(retryAfter) && retryAfter >= 1, `Retry-After is a whole number of seconds (${String(limited.headers['retry-after'])})`);
    assert.match(error.errorMessage, /retry/i);
  });

  test('limits are per API key: another key of the same merchant, and other merchants, are unaffected', async () => {
    const limitedMerchant = await context.createMerchant();
    const { limited } = await exhaust(() => read(context, limitedMerchant.apiKey));
    assert.ok(limited);
    const secondKey = assertSucceeded<{ apiKey: string }>(await context.admin('POST', `/admin/v1/merchants/${limitedMerchant.id}/api_keys`, { name: 'second' }));
    assertError(await read(context, secondKey.apiKey), 404, 'NOT_FOUND');
    const other = await context.createMerchant();
    assertError(await read(context, other.apiKey), 404, 'NOT_FOUND');
  });

  test('unauthenticated requests are refused before they can use up a key’s budget', async () => {
    const fresh = await context.createMerchant();
    for (let index = 0; index < burst * 3; index += 1) {
      assertError(await context.app.inject({ method: 'GET', url: `/v1/customers/cus_${'0'.repeat(36)}` }), 401, 'UNAUTHORIZED');
    }
    assertError(await read(context, fresh.apiKey), 404, 'NOT_FOUND');
  });

  test('the bucket refills at the configured rate', async () => {
    let now = 0;
    const limiter = createMemoryRateLimiter(2, 3, () => now);
    assert.deepEqual([await limiter.take('k'), await limiter.take('k'), await limiter.take('k')], [0, 0, 0]);
    assert.equal(await limiter.take('k'), 1, 'empty: wait one second');
    now += 499;
    assert.ok((await limiter.take('k')) > 0, 'less than one token refilled');
    now += 1;
    assert.equal(await limiter.take('k'), 0, 'half a second at 2/s refills one token');
    now += 60_000;
    assert.deepEqual([await limiter.take('k'), await limiter.take('k'), await limiter.take('k'), await limiter.take('k') > 0], [0, 0, 0, true], 'refill is capped at the burst');
    assert.equal(await limiter.take('other'), 0, 'buckets are per key');
  });
});

/** The shared-bucket test: a bucket much larger than its refill (one token a second). */
const sharedBurst = 20;
const sharedLimits = { RATE_LIMIT_PER_SECOND: '1', RATE_LIMIT_BURST: String(sharedBurst) };

describe('rate limit shared through Redis', () => {
  const keyPrefix = `paysail-test:${process.pid}:${randomBytes(6).toString('hex')}:`;
  let first: TestContext;
  let second: TestContext;
  let merchant: TestMerchant;
  let redis: Redis;

  before(async () => {
    redis = new Redis(redisUrl, { maxRetriesPerRequest: 1 });
    assert.equal(await redis.ping(), 'PONG', `Redis must run at ${redisUrl} (set REDIS_URL_FOR_TESTS)`);
    // Two platform instances ("processes") on one database and one Redis.
    first = await createTestContext({ env: { ...sharedLimits, REDIS_URL: redisUrl } });
    second = await createTestContext({ env: { ...sharedLimits, REDIS_URL: redisUrl }, database: first.database });
    merchant = await first.createMerchant();
  });
  after(async () => {
    await second.close();
    await first.close();
    const keys = await redis.keys(`${keyPrefix}*`);
    if (keys.length > 0) {
      await redis.del(...keys);
    }
    redis.disconnect();
  });

  test('two instances share one bucket per key', async () => {
    // The first instance spends the bucket; the second, asked at once for as many requests as a
    // full bucket holds, must refuse some: its own bucket would serve them all. The bucket is large
    // (sharedBurst) beside its refill of one token a second, so only a stall longer than
    // sharedBurst seconds between the two could refill it — which fails the test, it never passes it.
    const { allowed, limited } = await exhaust(() => read(first, merchant.apiKey), sharedBurst * 3);
    assert.ok(limited, 'the first instance refuses beyond the burst');
    assert.ok(allowed >= sharedBurst);
    const answers: LightMyRequestResponse[] = [];
    for (let index = 0; index < sharedBurst; index += 1) {
      answers.push(await read(second, merchant.apiKey));
    }
    const refused = answers.filter((response) => response.statusCode === 429);
    assert.ok(refused.length > 0, `the second instance sees the spent bucket: ${answers.length - refused.length} of ${sharedBurst} served, a bucket of its own would serve all`);
    for (const response of refused) {
      assertError(response, 429, 'RATE_LIMITED');
      assert.ok(Number(response.headers['retry-after']) >= 1);
    }
    assert.ok(answers.length - refused.length < sharedBurst / 2, `only refilled tokens are served (${answers.length - refused.length} of ${sharedBurst})`);
  });

  test('the limiter keeps its state under its own key prefix, per API key, with an expiry', async () => {
    const limiter = createRedisRateLimiter(redisUrl, 1, 2, { keyPrefix });
    try {
      assert.equal(await limiter.take('key_a'), 0);
      assert.equal(await limiter.take('key_a'), 0);
      assert.ok((await limiter.take('key_a')) >= 1);
      assert.equal(await limiter.take('key_b'), 0, 'another key has its own bucket');
      const ttl = await redis.pttl(`${keyPrefix}key_a`);
      assert.ok(ttl > 0 && ttl <= 3_000, `idle buckets expire (ttl ${ttl} ms)`);
    } finally {
      await limiter.close();
    }
  });

  test('with Redis unreachable the limiter fails open instead of refusing every request', async () => {
    const limiter = createRedisRateLimiter('redis://127.0.0.1:1', 1, 1, { keyPrefix });
    try {
      assert.equal(await limiter.take('key_c'), 0);
      assert.equal(await limiter.take('key_c'), 0);
    } finally {
      await limiter.close();
    }
  });
});
