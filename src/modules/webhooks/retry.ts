/**
 * The delivery retry policy (docs/API.md §12, Svix's schedule): the first attempt at once, then retries
 * after 5 s, 5 min, 30 min, 2 h, 5 h, 10 h and 10 h — 8 attempts over about 27.5 hours — then the
 * delivery is FAILED.
 */
export const retryDelaysMs: readonly number[] = [5_000, 300_000, 1_800_000, 7_200_000, 18_000_000, 36_000_000, 36_000_000];
export const maxDeliveryAttempts = retryDelaysMs.length + 1;

/** ±10 % jitter spreads retries of many deliveries that failed together (an outage) apart. */
export const retryJitter = 0.1;

/** The longest wait a receiver's Retry-After can ask for: the longest step of the schedule. */
export const maxRetryAfterMs = 36_000_000;

/**
 * Delay before attempt `attempt + 1` after attempt `attempt` (1-based) failed, or null when the
 * attempts are used up. A Retry-After (429/503) can lengthen the wait, never shorten it, and is capped
 * at `maxRetryAfterMs`: a receiver cannot make us hammer it, nor park a delivery for days.
 */
export function nextRetryDelayMs(attempt: number, retryAfterMs: number | null, random: () => number = Math.random): number | null {
  const base = retryDelaysMs[attempt - 1];
  if (base === undefined) {
    return null;
  }
  const jittered = Math.round(base * (1 - retryJitter + 2 * retryJitter * random()));
  if (retryAfterMs === null) {
    return jittered;
  }
  return Math.max(jittered, Math.min(retryAfterMs, maxRetryAfterMs));
}

/** `Retry-After` as delta-seconds or an HTTP date, in ms from `now`; null when absent or unreadable. */
export function parseRetryAfter(header: string | undefined, now: Date): number | null {
  if (header === undefined) {
    return null;
  }
  const trimmed = header.trim();
  if (/^\d+$/.test(trimmed)) {
    return Number(trimmed) * 1000;
  }
  const date = Date.parse(trimmed);
  if (Number.isNaN(date)) {
    return null;
  }
  return Math.max(0, date - now.getTime());
}
