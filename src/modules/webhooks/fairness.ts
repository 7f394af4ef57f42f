/**
 * Fair delivery (decision 0027): what keeps one merchant's slow receivers from delaying the others.
 *
 * - **In-flight caps, per process.** At most `perEndpoint` attempts in flight to one endpoint and
 *   `perMerchant` for one merchant; above them an attempt waits for a slot (a fast receiver just
 *   queues, as its connection pool would make it anyway).
 * - **Slow attempts are isolated.** An attempt still unanswered after `slowAfterMs` is slow. An
 *   endpoint with `slowPerEndpoint` slow attempts, or a merchant with `slowPerMerchant`, gets no
 *   more attempts now: they are deferred to the retry lane (`webhooks.deliver`), where a job that
 *   still finds no room is rescheduled without holding a slot. Waiting attempts re-check when an
 *   attempt turns slow, so a burst stops at once.
 * - **Circuit breaker, in the database** (pure rules below; the columns are on the endpoint, so
 *   every worker agrees): `circuitThreshold` timeouts in a row open the circuit for a back-off that
 *   doubles to 10 minutes; deliveries wait until then; then one worker wins the half-open probe by a
 *   conditional UPDATE. An endpoint that timed out last time gets a shorter timeout.
 */

export interface FairnessLimits {
  perEndpoint: number;
  perMerchant: number;
  slowAfterMs: number;
  slowPerEndpoint: number;
  slowPerMerchant: number;
}

export const defaultFairnessLimits: FairnessLimits = {
  // The HTTP client's sockets per origin: no fewer, so a fast receiver is as busy as before.
  perEndpoint: 64,
  // A quarter of the fan-out lane (256 per worker) and half the retry lane (128): one merchant's
  // attempts never fill either.
  perMerchant: 64,
  slowAfterMs: 1_000,
  slowPerEndpoint: 4,
  slowPerMerchant: 16,
};

/** Timeouts in a row that open an endpoint's circuit. */
export const circuitThreshold = 3;
/** The first open period; it doubles with every further timeout, up to `circuitMaxOpenMs`. */
export const circuitBaseOpenMs = 30_000;
export const circuitMaxOpenMs = 10 * 60_000;
/** The attempt timeout of an endpoint whose last attempt timed out (when shorter than the configured one). */
export const suspectTimeoutMs = 5_000;

/** Whether an attempt's result is a timeout (no complete answer in time). */
export function isTimeout(result: { statusCode: number | null; error: string | null }): boolean {
  return result.statusCode === null && (result.error ?? '').startsWith('timeout:');
}

/** How long the circuit stays open after the `consecutive`-th timeout in a row (null: still closed). */
export function circuitOpenMs(consecutive: number): number | null {
  if (consecutive < circuitThreshold) {
    return null;
  }
  return Math.min(circuitMaxOpenMs, circuitBaseOpenMs * 2 ** Math.min(consecutive - circuitThreshold, 10));
}

export type CircuitState = 'closed' | 'open' | 'half-open';

export function circuitState(endpoint: { consecutiveTimeouts: number; circuitOpenUntil: Date | null }, now: Date): CircuitState {
  if (endpoint.consecutiveTimeouts < circuitThreshold) {
    return 'closed';
  }
  return endpoint.circuitOpenUntil && endpoint.circuitOpenUntil.getTime() > now.getTime() ? 'open' : 'half-open';
}

/** The attempt timeout for an endpoint: shorter once it timed out. */
export function attemptTimeoutMs(endpoint: { consecutiveTimeouts: number }, configuredMs: number): number {
  return endpoint.consecutiveTimeouts > 0 ? Math.min(configuredMs, suspectTimeoutMs) : configuredMs;
}

/** A deferred attempt's time: spread over `[from + minMs, from + maxMs)` so a crowd does not wake at once. */
export function spread(from: Date, minMs: number, maxMs: number, random: () => number): Date {
  return new Date(from.getTime() + minMs + Math.floor(random() * Math.max(0, maxMs - minMs)));
}

/**
 * When a delivery to an endpoint whose circuit is open (or being probed) is tried again: spread over
 * one more open period after it ends, so the waiting deliveries do not all wake at once (a crowd of
 * due jobs would delay every other merchant's retries and test events behind it).
 */
export function afterCircuit(endpoint: { consecutiveTimeouts: number; circuitOpenUntil: Date | null }, now: Date, random: () => number): Date {
  const until = endpoint.circuitOpenUntil && endpoint.circuitOpenUntil.getTime() > now.getTime() ? endpoint.circuitOpenUntil : now;
  return spread(until, 1_000, circuitOpenMs(endpoint.consecutiveTimeouts) ?? circuitBaseOpenMs, random);
}

interface Counts {
  inFlight: number;
  slow: number;
}

/** A held slot: `release()` once the attempt answered (or failed). */
export interface Slot {
  release(): void;
}

/** An attempt waiting for a slot. */
interface Waiter {
  endpointId: string;
  merchantId: string;
  resolve: (slot: Slot | null) => void;
}

/**
 * The in-flight caps of one process (see the file comment). Waiting attempts queue per merchant
 * (every cap that can hold one back is its merchant's or one of its endpoints'), oldest first; a
 * release hands its slot straight to the first of that merchant's waiting attempts that fits, and
 * an attempt turning slow answers the waiting attempts it isolates with null.
 */
export class DeliveryGate {
  private readonly endpoints = new Map<string, Counts>();
  private readonly merchants = new Map<string, Counts>();
  private readonly waiting = new Map<string, Waiter[]>();

  constructor(private readonly limits: FairnessLimits = defaultFairnessLimits) {}

  private counts(map: Map<string, Counts>, key: string): Counts {
    let counts = map.get(key);
    if (!counts) {
      counts = { inFlight: 0, slow: 0 };
      map.set(key, counts);
    }
    return counts;
  }

  private drop(map: Map<string, Counts>, key: string): void {
    const counts = map.get(key);
    if (counts && counts.inFlight === 0) {
      map.delete(key);
    }
  }

  private hasRoom(endpointId: string, merchantId: string): boolean {
    return (this.endpoints.get(endpointId)?.inFlight ?? 0) < this.limits.perEndpoint && (this.merchants.get(merchantId)?.inFlight ?? 0) < this.limits.perMerchant;
  }

  /**
   * Gives the merchant's waiting attempts what they can have now, oldest first: a slot, or null
   * once isolated. `all` looks at every one (after an attempt turned slow); otherwise the look stops
   * when the merchant's cap is reached, as no later one could get a slot then (nor be isolated: only
   * an attempt turning slow isolates, and that looks at all of them).
   */
  private pump(merchantId: string, all: boolean): void {
    const queue = this.waiting.get(merchantId);
    if (!queue) {
      return;
    }
    const kept: Waiter[] = [];
    for (const [index, waiter] of queue.entries()) {
      if (!all && (this.merchants.get(merchantId)?.inFlight ?? 0) >= this.limits.perMerchant) {
        kept.push(...queue.slice(index));
        break;
      }
      if (this.isolated(waiter.endpointId, waiter.merchantId)) {
        waiter.resolve(null);
      } else if (this.hasRoom(waiter.endpointId, waiter.merchantId)) {
        waiter.resolve(this.take(waiter.endpointId, waiter.merchantId));
      } else {
        kept.push(waiter);
      }
    }
    if (kept.length > 0) {
      this.waiting.set(merchantId, kept);
    } else {
      this.waiting.delete(merchantId);
    }
  }

  /** Whether the endpoint or its merchant has too many slow attempts: new ones are deferred. */
  isolated(endpointId: string, merchantId: string): boolean {
    return (this.endpoints.get(endpointId)?.slow ?? 0) >= this.limits.slowPerEndpoint || (this.merchants.get(merchantId)?.slow ?? 0) >= this.limits.slowPerMerchant;
  }

  /** A slot for one attempt, waiting while the caps are reached; null when the attempt must be deferred instead. */
  acquire(endpointId: string, merchantId: string): Promise<Slot | null> {
    if (this.isolated(endpointId, merchantId)) {
      return Promise.resolve(null);
    }
    // Behind attempts of the same merchant already waiting: first come, first served.
    if (!this.waiting.has(merchantId) && this.hasRoom(endpointId, merchantId)) {
      return Promise.resolve(this.take(endpointId, merchantId));
    }
    return new Promise((resolve) => {
      const queue = this.waiting.get(merchantId);
      if (queue) {
        queue.push({ endpointId, merchantId, resolve });
      } else {
        this.waiting.set(merchantId, [{ endpointId, merchantId, resolve }]);
      }
      this.pump(merchantId, false);
    });
  }

  private take(endpointId: string, merchantId: string): Slot {
    const endpoint = this.counts(this.endpoints, endpointId);
    const merchant = this.counts(this.merchants, merchantId);
    endpoint.inFlight += 1;
    merchant.inFlight += 1;
    let slow = false;
    let released = false;
    const timer = setTimeout(() => {
      slow = true;
      endpoint.slow += 1;
      merchant.slow += 1;
      this.pump(merchantId, true); // waiting attempts of this endpoint or merchant now defer
    }, this.limits.slowAfterMs);
    timer.unref();
    return {
      release: () => {
        if (released) {
          return;
        }
        released = true;
        clearTimeout(timer);
        endpoint.inFlight -= 1;
        merchant.inFlight -= 1;
        if (slow) {
          endpoint.slow -= 1;
          merchant.slow -= 1;
        }
        this.drop(this.endpoints, endpointId);
        this.drop(this.merchants, merchantId);
        this.pump(merchantId, false);
      },
    };
  }

  /** In flight now (tests, metrics). */
  inFlight(merchantId: string): { inFlight: number; slow: number } {
    return { ...(this.merchants.get(merchantId) ?? { inFlight: 0, slow: 0 }) };
  }
}
