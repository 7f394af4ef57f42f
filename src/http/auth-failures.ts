import { AppError } from './errors.ts';
import { createMemoryRateLimiter } from './rate-limit.ts';

/**
 * Failed authentications per client address (API key or admin token): each failure takes a token
 * from the address's bucket (`perSecond` sustained, `burst` at once); once it is empty the address
 * is refused with 429 and Retry-After for the wait, before any authentication work — no key lookup,
 * no hash, no query — until the bucket has a token again. Successful requests cost nothing. Kept per
 * process (a flood is stopped where it lands); behind a proxy, TRUST_PROXY makes the address the
 * client's, not the proxy's.
 */
export interface AuthFailureGuard {
  /** Throws RATE_LIMITED while `address` is refused. */
  check(address: string): void;
  /** Counts one failed authentication from `address`; the error to answer it with: `failure` itself, or RATE_LIMITED once this failure spent the address's budget. */
  recordFailure(address: string, failure: AppError): Promise<AppError>;
}

/** Addresses remembered as refused at most: past it the ones whose wait is over are forgotten first. */
const maxBlockedAddresses = 100_000;

function refusal(waitSeconds: number): AppError {
  return new AppError('RATE_LIMITED', `Too many failed authentications from this address; retry after ${waitSeconds} s`, {}, { 'Retry-After': String(waitSeconds) });
}

export function createAuthFailureGuard(options: { perSecond: number; burst: number; now?: () => number }): AuthFailureGuard {
  const now = options.now ?? Date.now;
  const buckets = createMemoryRateLimiter(options.perSecond, options.burst, now);
  const blockedUntil = new Map<string, number>();

  return {
    check(address) {
      const until = blockedUntil.get(address);
      if (until === undefined) {
        return;
      }
      const remainingMs = until - now();
      if (remainingMs <= 0) {
        blockedUntil.delete(address);
        return;
      }
      throw refusal(Math.max(1, Math.ceil(remainingMs / 1000)));
    },
    async recordFailure(address, failure) {
      const wait = await buckets.take(`auth-failure:${address}`);
      if (wait > 0) {
        if (blockedUntil.size >= maxBlockedAddresses) {
          const time = now();
          for (const [blocked, until] of blockedUntil) {
            if (until <= time || blockedUntil.size >= maxBlockedAddresses) {
              blockedUntil.delete(blocked);
            }
          }
        }
        blockedUntil.set(address, now() + wait * 1000);
        return refusal(wait);
      }
      return failure;
    },
  };
}
