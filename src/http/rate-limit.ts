import { createRequire } from 'node:module';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type * as IoRedis from 'ioredis';
import { AppError } from './errors.ts';

/** A bucket's own size, where it differs from the limiter's default. */
export interface BucketLimit {
  ratePerSecond: number;
  burst: number;
}

/** One take from a bucket: whether it was allowed, and what is left (for the RateLimit header). */
export interface TakeResult {
  /** 0 when allowed, else the whole seconds until a token is there. */
  waitSeconds: number;
  /** Whole tokens left after this take; undefined when the store did not answer (fail open). */
  remaining?: number;
  /** Whole seconds until the bucket is full again; undefined with `remaining`. */
  fullInSeconds?: number;
}

export interface RateLimiter {
  /** Takes one token for `key` (from a bucket of `limit`, default the limiter's); returns 0 when allowed, else the seconds to wait. */
  take(key: string, limit?: BucketLimit): Promise<number>;
  /** `take`, also telling what is left in the bucket. */
  consume(key: string, limit?: BucketLimit): Promise<TakeResult>;
  close(): Promise<void>;
}

/** Whole seconds until a bucket holding `tokens` is full again. */
function secondsUntilFull(tokens: number, ratePerSecond: number, burst: number): number {
  return Math.max(0, Math.ceil((burst - tokens) / ratePerSecond));
}

/** How many keys the in-process limiter keeps before it evicts the least recently used ones. */
export const defaultMaxKeys = 100_000;

/**
 * Token bucket: `ratePerSecond` tokens a second, at most `burst` stored. In-process by default;
 * shared across processes through Redis when REDIS_URL is set.
 *
 * The in-process map is bounded by `maxKeys`. It is kept in order of last use (a key is moved to
 * the end on every take), so when it grows past the bound the buckets at the front go first: those
 * idle long enough to have refilled completely (forgetting them changes nothing), then, if a flood
 * of new keys still overflows it, the least recently used. Clearing everything instead would hand
 * every key a full bucket again, which a flood of throwaway keys could use to reset the others.
 */
export function createMemoryRateLimiter(defaultRate: number, defaultBurst: number, now: () => number = Date.now, options: { maxKeys?: number } = {}): RateLimiter {
  const maxKeys = options.maxKeys ?? defaultMaxKeys;
  const buckets = new Map<string, { tokens: number; updatedAt: number; refillMs: number }>();

  function evict(time: number): void {
    for (const [key, bucket] of buckets) {
      const refilled = time - bucket.updatedAt >= bucket.refillMs;
      if (!refilled && buckets.size <= maxKeys) {
        return;
      }
      buckets.delete(key);
    }
  }

  async function consume(key: string, limit?: BucketLimit): Promise<TakeResult> {
    const ratePerSecond = limit?.ratePerSecond ?? defaultRate;
    const burst = limit?.burst ?? defaultBurst;
    const time = now();
    const bucket = buckets.get(key) ?? { tokens: burst, updatedAt: time, refillMs: 0 };
    bucket.refillMs = (burst / ratePerSecond) * 1000;
    bucket.tokens = Math.min(burst, bucket.tokens + ((time - bucket.updatedAt) / 1000) * ratePerSecond);
    bucket.updatedAt = time;
    buckets.delete(key);
    buckets.set(key, bucket);
    if (buckets.size > maxKeys) {
      evict(time);
    }
    const allowed = bucket.tokens >= 1;
    if (allowed) {
      bucket.tokens -= 1;
    }
    return {
      waitSeconds: allowed ? 0 : Math.max(1, Math.ceil((1 - bucket.tokens) / ratePerSecond)),
      remaining: Math.floor(bucket.tokens),
      fullInSeconds: secondsUntilFull(bucket.tokens, ratePerSecond, burst),
    };
  }

  return {
    consume,
    async take(key, limit) {
      return (await consume(key, limit)).waitSeconds;
    },
    async close() {
      buckets.clear();
    },
  };
}

const tokenBucketScript = `
local key = KEYS[1]
local rate = tonumber(ARGV[1])
local burst = tonumber(ARGV[2])
local now = redis.call('TIME')
local nowMs = tonumber(now[1]) * 1000 + math.floor(tonumber(now[2]) / 1000)
local state = redis.call('HMGET', key, 'tokens', 'at')
local tokens = tonumber(state[1]) or burst
local at = tonumber(state[2]) or nowMs
tokens = math.min(burst, tokens + ((nowMs - at) / 1000) * rate)
local allowed = 0
if tokens >= 1 then
  tokens = tokens - 1
  allowed = 1
end
redis.call('HSET', key, 'tokens', tostring(tokens), 'at', tostring(nowMs))
redis.call('PEXPIRE', key, math.ceil(burst / rate * 1000) + 1000)
local wait = 0
if allowed == 0 then wait = math.max(1, math.ceil((1 - tokens) / rate)) end
return {wait, math.floor(tokens)}
`;

/**
 * The shared bucket: one Lua script per request, atomic in Redis, timed by Redis's own clock so the
 * processes' clocks need not agree. `keyPrefix` separates deployments (or test runs) sharing a Redis.
 */
export function createRedisRateLimiter(url: string, defaultRate: number, defaultBurst: number, options: { keyPrefix?: string } = {}): RateLimiter {
  const keyPrefix = options.keyPrefix ?? 'paysail:ratelimit:';
  // Loaded only with REDIS_URL set (a tenth of a second of a start that never uses it).
  const { Redis } = createRequire(import.meta.url)('ioredis') as typeof IoRedis;
  const redis = new Redis(url, { maxRetriesPerRequest: 1, enableOfflineQueue: true, lazyConnect: false });
  redis.on('error', () => undefined);
  async function consume(key: string, limit?: BucketLimit): Promise<TakeResult> {
    const ratePerSecond = limit?.ratePerSecond ?? defaultRate;
    const burst = limit?.burst ?? defaultBurst;
    try {
      const [wait, remaining] = (await redis.eval(tokenBucketScript, 1, `${keyPrefix}${key}`, ratePerSecond, burst)) as [number, number];
      return { waitSeconds: Number(wait), remaining: Number(remaining), fullInSeconds: secondsUntilFull(Number(remaining), ratePerSecond, burst) };
    } catch {
      // Redis down: fail open rather than refuse every request; the outage is visible in logs/metrics.
      return { waitSeconds: 0 };
    }
  }
  return {
    consume,
    async take(key, limit) {
      return (await consume(key, limit)).waitSeconds;
    },
    async close() {
      redis.disconnect();
    },
  };
}

/** The bucket's quota policy as draft-ietf-httpapi-ratelimit-headers writes it: `q` tokens, refilled from empty in `w` seconds. */
function policyItem(name: string, limit: BucketLimit): string {
  return `"${name}";q=${limit.burst};w=${Math.max(1, Math.ceil(limit.burst / limit.ratePerSecond))}`;
}

/** What is left of the bucket: `r` whole tokens, full again in `t` seconds (absent when the store did not answer). */
function stateItem(name: string, result: TakeResult): string | undefined {
  return result.remaining === undefined ? undefined : `"${name}";r=${result.remaining};t=${result.fullInSeconds ?? 0}`;
}

/** `RateLimit-Policy` and `RateLimit` (draft-ietf-httpapi-ratelimit-headers) for the buckets this request took from. */
function setRateLimitHeaders(reply: FastifyReply, buckets: ReadonlyArray<{ name: string; limit: BucketLimit; result: TakeResult }>): void {
  const states = buckets.map((bucket) => stateItem(bucket.name, bucket.result)).filter((item) => item !== undefined);
  if (states.length === 0) {
    return;
  }
  reply.header('RateLimit-Policy', buckets.map((bucket) => policyItem(bucket.name, bucket.limit)).join(', '));
  reply.header('RateLimit', states.join(', '));
}

/**
 * Two buckets per request: the API key's (`keyLimit`, the limiter's default), then the merchant's (all
 * its keys together, so more keys do not multiply the limit). The merchant's size is the operator's
 * override on the merchant row, else `merchantDefault`. A request refused by the merchant's bucket has
 * spent its key's token: both limits count attempts, as the key's alone did.
 *
 * Every answer past authentication carries `RateLimit-Policy` (`"key";q=<burst>;w=<seconds to refill>`,
 * then `"merchant";…`) and `RateLimit` (`"key";r=<tokens left>;t=<seconds until full>`, …) of the
 * buckets it took from; a 429 adds `Retry-After`.
 */
export function createRateLimitHook(limiter: RateLimiter, merchantDefault: BucketLimit, keyLimit: BucketLimit) {
  return async function rateLimit(request: FastifyRequest, reply: FastifyReply): Promise<void> {
    if (!request.auth) {
      return;
    }
    const keyResult = await limiter.consume(request.auth.apiKeyId);
    if (keyResult.waitSeconds > 0) {
      setRateLimitHeaders(reply, [{ name: 'key', limit: keyLimit, result: keyResult }]);
      throw new AppError('RATE_LIMITED', `Too many requests for this API key; retry after ${keyResult.waitSeconds} s`, {}, { 'Retry-After': String(keyResult.waitSeconds) });
    }
    const { merchant } = request.auth;
    const merchantLimit = {
      ratePerSecond: merchant.rateLimitPerSecond ?? merchantDefault.ratePerSecond,
      burst: merchant.rateLimitBurst ?? merchantDefault.burst,
    };
    const merchantResult = await limiter.consume(`merchant:${merchant.id}`, merchantLimit);
    setRateLimitHeaders(reply, [
      { name: 'key', limit: keyLimit, result: keyResult },
      { name: 'merchant', limit: merchantLimit, result: merchantResult },
    ]);
    if (merchantResult.waitSeconds > 0) {
      throw new AppError(
        'RATE_LIMITED',
        `Too many requests for this merchant (all its API keys together); retry after ${merchantResult.waitSeconds} s`,
        {},
        { 'Retry-After': String(merchantResult.waitSeconds) },
      );
    }
  };
}
