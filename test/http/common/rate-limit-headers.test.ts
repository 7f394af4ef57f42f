import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { Redis } from 'ioredis';
import type { LightMyRequestResponse } from 'fastify';
import { createTestContext, type TestContext, type TestMerchant } from '../../helpers/context.ts';
import { assertError } from '../../helpers/assertions.ts';
import { createMemoryRateLimiter, createRedisRateLimiter } from '../../../src/http/rate-limit.ts';

/**
 * `RateLimit-Policy` and `RateLimit` (draft-ietf-httpapi-ratelimit-headers): every answer past
 * authentication names the buckets it took from, their quota and what is left of it.
 */

const redisUrl = process.env.REDIS_URL_FOR_TESTS ?? 'redis://127.0.0.1:6379';
const limits = { RATE_LIMIT_PER_SECOND: '1', RATE_LIMIT_BURST: '3', MERCHANT_RATE_LIMIT_PER_SECOND: '10', MERCHANT_RATE_LIMIT_BURST: '50' };

/** Parses a list of `"name";k=v;k=v` items into `{ name: { k: v } }` (integers only, as these headers use). */
function parseItems(header: unknown): Record<string, Record<string, number>> {
  assert.equal(typeof header, 'string', `header present (${String(header)})`);
  const items: Record<string, Record<string, number>> = {};
  for (const item of String(header).split(/,\s*/)) {
    const match = /^"([a-z]+)"((?:;[a-z]+=\d+)+)$/.exec(item);
    assert.ok(match, `a structured-field item with integer parameters: ${item}`);
    const [, name = '', parameters = ''] = match;
    items[name] = Object.fromEntries(parameters.slice(1).split(';').map((pair) => [pair.split('=')[0] ?? '', Number(pair.split('=')[1])]));
  }
  return items;
}

describe('RateLimit headers (in process)', () => {
  let context: TestContext;
  let merchant: TestMerchant;

  before(async () => {
    context = await createTestContext({ env: limits });
    merchant = await context.createMerchant();
  });
  after(async () => context.close());

  const read = (): Promise<LightMyRequestResponse> => context.request({ method: 'GET', url: `/v1/customers/cus_${'0'.repeat(36)}`, apiKey: merchant.apiKey });

  test('each answer names both buckets, down to the 429, which has nothing left', async () => {
    const first = await read();
    assertError(first, 404, 'NOT_FOUND');
    assert.deepEqual(parseItems(first.headers['ratelimit-policy']), { key: { q: 3, w: 3 }, merchant: { q: 50, w: 5 } });
    const state = parseItems(first.headers['ratelimit']);
    assert.equal(state.key?.r, 2, 'one of three tokens spent');
    assert.equal(state.merchant?.r, 49);
    assert.ok((state.key?.t ?? 0) >= 1 && (state.key?.t ?? 0) <= 3, `full again within the window (t=${state.key?.t})`);

    let limited: LightMyRequestResponse | undefined;
    for (let index = 0; index < 10 && !limited; index += 1) {
      const response = await read();
      if (response.statusCode === 429) {
        limited = response;
      } else {
        assert.ok((parseItems(response.headers['ratelimit']).key?.r ?? -1) >= 0);
      }
    }
    assert.ok(limited, 'the key is limited');
    assertError(limited, 429, 'RATE_LIMITED');
    const refused = parseItems(limited.headers['ratelimit']);
    assert.equal(refused.key?.r, 0, 'nothing left when refused');
    assert.ok(Number(limited.headers['retry-after']) >= 1);
    assert.ok((refused.key?.t ?? 0) >= Number(limited.headers['retry-after']), 'the bucket is full no sooner than a token is back');
    assert.deepEqual(Object.keys(parseItems(limited.headers['ratelimit-policy'])), ['key'], 'a request refused by its key took nothing from the merchant’s bucket');
  });

  test('unauthenticated answers carry no RateLimit headers (no bucket was consulted)', async () => {
    const response = await context.app.inject({ method: 'GET', url: '/v1/balance' });
    assertError(response, 401, 'UNAUTHORIZED');
    assert.equal(response.headers['ratelimit'], undefined);
    assert.equal(response.headers['ratelimit-policy'], undefined);
  });

  test('the in-process bucket reports whole tokens left and the seconds until it is full', async () => {
    let now = 0;
    const limiter = createMemoryRateLimiter(2, 4, () => now);
    assert.deepEqual(await limiter.consume('k'), { waitSeconds: 0, remaining: 3, fullInSeconds: 1 });
    await limiter.consume('k');
    await limiter.consume('k');
    assert.deepEqual(await limiter.consume('k'), { waitSeconds: 0, remaining: 0, fullInSeconds: 2 });
    assert.deepEqual(await limiter.consume('k'), { waitSeconds: 1, remaining: 0, fullInSeconds: 2 });
    now += 60_000;
    assert.deepEqual(await limiter.consume('k'), { waitSeconds: 0, remaining: 3, fullInSeconds: 1 });
  });
});

describe('RateLimit state from the shared (Redis) bucket', () => {
  test('the Redis bucket reports the same state as the in-process one; unreachable, it reports none', async () => {
    const redis = new Redis(redisUrl, { maxRetriesPerRequest: 1 });
    assert.equal(await redis.ping(), 'PONG', `Redis must run at ${redisUrl} (set REDIS_URL_FOR_TESTS)`);
    const keyPrefix = `paysail:test:ratelimit-headers:${process.pid}:${Date.now()}:`;
    const limiter = createRedisRateLimiter(redisUrl, 1, 2, { keyPrefix });
    const down = createRedisRateLimiter('redis://127.0.0.1:1', 1, 2, { keyPrefix });
    try {
      assert.deepEqual(await limiter.consume('key_a'), { waitSeconds: 0, remaining: 1, fullInSeconds: 1 });
      assert.deepEqual(await limiter.consume('key_a'), { waitSeconds: 0, remaining: 0, fullInSeconds: 2 });
      const refused = await limiter.consume('key_a');
      assert.ok(refused.waitSeconds >= 1);
      assert.equal(refused.remaining, 0);
      assert.deepEqual(await down.consume('key_b'), { waitSeconds: 0 }, 'fail open, with no state to report');
    } finally {
      await limiter.close();
      await down.close();
      const keys = await redis.keys(`${keyPrefix}*`);
      if (keys.length > 0) {
        await redis.del(...keys);
      }
      redis.disconnect();
    }
  });
});
