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
// The merchant-wide bucket is made large here: these tests are about the key's.
const limits = { RATE_LIMIT_PER_SECOND: '1', RATE_LIMIT_BURST: String(burst), MERCHANT_RATE_LIMIT_PER_SECOND: '1000', MERCHANT_RATE_LIMIT_BURST: '1000' };
// And the key's bucket large here: these are about the merchant's.
const merchantLimits = { RATE_LIMIT_PER_SECOND: '1000', RATE_LIMIT_BURST: '1000', MERCHANT_RATE_LIMIT_PER_SECOND: '1', MERCHANT_RATE_LIMIT_BURST: String(burst) };

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

describe('rate limit, in process (docs/API.md §4)', () => {
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
    assert.match(assertError(limited, 429, 'RATE_LIMITED').errorMessage, /API key/);
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

describe('rate limit per merchant, over all its API keys (in process)', () => {
  let context: TestContext;

  before(async () => {
    context = await createTestContext({ env: merchantLimits });
  });
  after(async () => context.close());

  async function keysOf(merchant: TestMerchant, count: number): Promise<string[]> {
    const keys = [merchant.apiKey];
    for (let index = 1; index < count; index += 1) {
      keys.push(assertSucceeded<{ apiKey: string }>(await context.admin('POST', `/admin/v1/merchants/${merchant.id}/api_keys`, { name: `key ${index}` })).apiKey);
    }
    return keys;
  }

  /** Reads round-robin over `keys`. */
  function rotating(keys: string[]): () => Promise<LightMyRequestResponse> {
    let next = 0;
    return () => read(context, keys[next++ % keys.length] as string);
  }

  test('more keys do not multiply the limit: three keys together get one merchant bucket; other merchants are unaffected', async () => {
    const merchant = await context.createMerchant();
    const keys = await keysOf(merchant, 3);
    const { allowed, limited, elapsedMs } = await exhaust(rotating(keys));
    assert.ok(limited, 'three keys, each far below its own limit, are refused together');
    const error = assertError(limited, 429, 'RATE_LIMITED');
    assert.match(error.errorMessage, /merchant/);
    assert.ok(Number(limited.headers['retry-after']) >= 1);
    assert.ok(allowed >= burst, `the merchant's burst of ${burst} is served (got ${allowed})`);
    assert.ok(allowed <= ceiling(elapsedMs), `no more than one bucket's burst plus its refill over all keys (${allowed} in ${elapsedMs} ms)`);
    const other = await context.createMerchant();
    assertError(await read(context, other.apiKey), 404, 'NOT_FOUND');
  });

  test('the operator sizes one merchant\'s bucket (admin settings); null returns to the default', async () => {
    const merchant = await context.createMerchant();
    const keys = await keysOf(merchant, 2);
    const settings = assertSucceeded<{ rateLimitPerSecond: number | null; rateLimitBurst: number | null }>(
      await context.admin('POST', `/admin/v1/merchants/${merchant.id}/settings`, { rateLimitPerSecond: 1, rateLimitBurst: burst * 3 }),
    );
    assert.deepEqual([settings.rateLimitPerSecond, settings.rateLimitBurst], [1, burst * 3]);
    const larger = await exhaust(rotating(keys));
    assert.ok(larger.limited);
    assert.ok(larger.allowed >= burst * 3, `the larger bucket serves ${burst * 3} (got ${larger.allowed})`);
    assert.ok(larger.allowed <= burst * 3 + Math.ceil(larger.elapsedMs / 1000), `and no more than it plus its refill (${larger.allowed} in ${larger.elapsedMs} ms)`);
    const reset = assertSucceeded<{ rateLimitPerSecond: number | null; rateLimitBurst: number | null }>(
      await context.admin('POST', `/admin/v1/merchants/${merchant.id}/settings`, { rateLimitPerSecond: null, rateLimitBurst: null }),
    );
    assert.deepEqual([reset.rateLimitPerSecond, reset.rateLimitBurst], [null, null]);
    const stored = assertSucceeded<{ rateLimitPerSecond: number | null }>(await context.admin('GET', `/admin/v1/merchants/${merchant.id}`));
    assert.equal(stored.rateLimitPerSecond, null);
  });

  test('merchant limit settings: bad values are 400 WRONG_PARAMETER naming the field, and nothing changes', async () => {
    const merchant = await context.createMerchant();
    const cases: Array<[Record<string, unknown>, string]> = [
      [{ rateLimitPerSecond: 0, rateLimitBurst: 5 }, 'rateLimitPerSecond'],
      [{ rateLimitPerSecond: 5, rateLimitBurst: 1.5 }, 'rateLimitBurst'],
      [{ rateLimitPerSecond: '5', rateLimitBurst: 5 }, 'rateLimitPerSecond'],
      [{ rateLimitPerSecond: 10, rateLimitBurst: 5 }, 'rateLimitBurst'],
      [{ rateLimitPerSecond: 10 }, 'rateLimitBurst'],
      [{ rateLimitPerSecond: 2_000_000, rateLimitBurst: 2_000_000 }, 'rateLimitPerSecond'],
    ];
    for (const [body, field] of cases) {
      const error = assertError(await context.admin('POST', `/admin/v1/merchants/${merchant.id}/settings`, body), 400, 'WRONG_PARAMETER');
      assert.match(JSON.stringify(error), new RegExp(field), `${JSON.stringify(body)} names ${field}`);
    }
    const read = assertSucceeded<{ rateLimitPerSecond: number | null; rateLimitBurst: number | null }>(await context.admin('GET', `/admin/v1/merchants/${merchant.id}`));
    assert.deepEqual([read.rateLimitPerSecond, read.rateLimitBurst], [null, null]);
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
