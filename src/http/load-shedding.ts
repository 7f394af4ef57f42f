import { monitorEventLoopDelay, performance } from 'node:perf_hooks';
import type { FastifyReply, FastifyRequest, HookHandlerDoneFunction } from 'fastify';
import { AppError } from './errors.ts';
import { sendError } from './core.ts';

/**
 * How often the event-loop delay is looked at; a saturated loop is noticed within about this long.
 * Half the threshold (5–100 ms): a tight threshold is only useful if it is checked as often.
 */
function sampleIntervalFor(maxEventLoopDelayMs: number): number {
  return Math.min(100, Math.max(5, Math.round(maxEventLoopDelayMs / 2)));
}

/** Probes and scrapes stay answerable under overload: a load balancer must not drop a busy but healthy process. */
const exemptRoutes: ReadonlySet<string> = new Set(['/healthz', '/readyz', '/metrics']);

export interface LoadShedder {
  /** The onRequest hook (callback style: no promise per request): admits the request or answers 503 SERVICE_UNAVAILABLE with Retry-After. */
  hook(request: FastifyRequest, reply: FastifyReply, done: HookHandlerDoneFunction): void;
  /** Requests admitted and not finished yet. */
  readonly inFlight: number;
  /** Requests refused since start. */
  readonly shed: number;
  /** Stops the event-loop sampler (app close). */
  close(): Promise<void>;
}

/**
 * Global load shedding, two signals, each off at 0:
 * - `maxInFlight`: at most that many requests are handled at once by this process; one more is
 *   answered at once with a 503 envelope (`Retry-After: 1`) instead of queueing behind the others.
 *   A request counts until its response is finished or its connection closed.
 * - `maxEventLoopDelayMs`: when the event loop fell behind by more than that in the last sampling
 *   interval (100 ms), new requests are answered 503 until it catches up. This is the signal that
 *   matters when the process itself is the bottleneck (the embedded PGlite database runs on the
 *   event loop, so waiting requests queue in socket buffers, not in flight).
 * The per-key rate limit (429) protects against one client; this protects the process against all
 * of them together. Health probes and metrics are never shed.
 */
export function createLoadShedder(options: { maxInFlight: number; maxEventLoopDelayMs: number }): LoadShedder {
  const { maxInFlight, maxEventLoopDelayMs } = options;
  let inFlight = 0;
  let shed = 0;
  let behind = false;
  const sampleIntervalMs = sampleIntervalFor(maxEventLoopDelayMs);
  // The histogram's own timer period: its readings include up to one period, so it is subtracted.
  const resolutionMs = Math.min(10, Math.max(1, Math.round(maxEventLoopDelayMs / 2)));
  const histogram = maxEventLoopDelayMs > 0 ? monitorEventLoopDelay({ resolution: resolutionMs }) : null;
  let sampler: NodeJS.Timeout | undefined;
  if (histogram) {
    histogram.enable();
    let lastSampleAt = performance.now();
    sampler = setInterval(() => {
      // Two views of the same delay: the histogram's (max in nanoseconds; its resolution is part of
      // every sample), and how late this sampler itself fired. The second is there at once:
      // after a long block the overdue sampler runs before anything the block held up, whereas the
      // histogram's own timer may not have recorded the block yet.
      const now = performance.now();
      const lateMs = now - lastSampleAt - sampleIntervalMs;
      lastSampleAt = now;
      behind = Math.max(histogram.max / 1e6 - resolutionMs, lateMs) > maxEventLoopDelayMs;
      histogram.reset();
    }, sampleIntervalMs);
    sampler.unref();
  }
  return {
    get inFlight() {
      return inFlight;
    },
    get shed() {
      return shed;
    },
    async close() {
      clearInterval(sampler);
      histogram?.disable();
    },
    hook(request, reply, done) {
      if ((maxInFlight <= 0 && !histogram) || exemptRoutes.has(request.routeOptions.url ?? '')) {
        done();
        return;
      }
      if ((maxInFlight > 0 && inFlight >= maxInFlight) || behind) {
        shed += 1;
        // Answered here: the hook chain stops once the reply is sent.
        sendError(request, reply, new AppError('SERVICE_UNAVAILABLE', 'The server is at capacity; retry after 1 s', {}, { 'Retry-After': '1' }));
        return;
      }
      if (maxInFlight <= 0) {
        done();
        return;
      }
      inFlight += 1;
      let released = false;
      reply.raw.once('close', () => {
        if (!released) {
          released = true;
          inFlight -= 1;
        }
      });
      done();
    },
  };
}
