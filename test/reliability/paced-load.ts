import http from 'node:http';
import { performance } from 'node:perf_hooks';

/**
 * An open-loop load generator: request i is sent at `start + i / rate`, whatever happened to the
 * earlier ones, and its latency is measured from that scheduled moment, not from when the client got
 * round to sending it. So a server (or a client) that falls behind shows it in the latency instead of
 * silently sending less ("coordinated omission"), and the offered load arrives evenly, not as
 * autocannon's `overallRate` sends it (each connection's share at the start of every second, a
 * whole second's requests in one burst).
 */
export interface PacedRequest {
  method: string;
  path: string;
  headers: Record<string, string>;
}

export interface PacedLoadOptions {
  url: string;
  /** Cycled through in order. */
  requests: readonly PacedRequest[];
  ratePerSecond: number;
  seconds: number;
  /** An answer not complete by then counts as a timeout. Default 10 s. */
  timeoutMs?: number;
  onResponse?: (status: number, body: string, headers: Record<string, string>) => void;
}

export interface PacedLoadResult {
  seconds: number;
  offeredRate: number;
  sent: number;
  answered: number;
  statusCodes: Record<string, number>;
  /** Latencies of 2xx answers, scheduled send → last byte, in ms (sorted). */
  admittedLatenciesMs: number[];
  errors: number;
  timeouts: number;
  /** How late the client itself sent, at worst (a client that cannot keep the pace is noticed). */
  maxSendLagMs: number;
}

export function percentile(sorted: readonly number[], fraction: number): number {
  if (sorted.length === 0) {
    return 0;
  }
  const index = Math.min(sorted.length - 1, Math.max(0, Math.ceil(fraction * sorted.length) - 1));
  return Math.round((sorted[index] ?? 0) * 10) / 10;
}

export async function runPacedLoad(options: PacedLoadOptions): Promise<PacedLoadResult> {
  const target = new URL(options.url);
  const timeoutMs = options.timeoutMs ?? 10_000;
  const agent = new http.Agent({ keepAlive: true, maxSockets: 2_048, maxFreeSockets: 2_048 });
  const total = Math.max(1, Math.round(options.ratePerSecond * options.seconds));
  const intervalMs = 1_000 / options.ratePerSecond;
  const statusCodes: Record<string, number> = {};
  const admitted: number[] = [];
  let answered = 0;
  let errors = 0;
  let timeouts = 0;
  let maxSendLagMs = 0;

  const send = (spec: PacedRequest, scheduledAt: number) =>
    new Promise<void>((resolve) => {
      let done = false;
      const finish = () => {
        if (!done) {
          done = true;
          clearTimeout(timer);
          resolve();
        }
      };
      const request = http.request({ host: target.hostname, port: target.port, path: spec.path, method: spec.method, headers: spec.headers, agent }, (response) => {
        const chunks: Buffer[] = [];
        response.on('data', (chunk: Buffer) => chunks.push(chunk));
        response.on('end', () => {
          const latency = performance.now() - scheduledAt;
          const status = response.statusCode ?? 0;
          answered += 1;
          statusCodes[String(status)] = (statusCodes[String(status)] ?? 0) + 1;
          if (status >= 200 && status < 300) {
            admitted.push(latency);
          }
          const headers = Object.fromEntries(Object.entries(response.headers).map(([name, value]) => [name, Array.isArray(value) ? value.join(', ') : String(value ?? '')]));
          options.onResponse?.(status, Buffer.concat(chunks).toString('utf8'), headers);
          finish();
        });
        response.on('error', () => {
          errors += 1;
          finish();
        });
      });
      const timer = setTimeout(() => {
        if (!done) {
          timeouts += 1;
          request.destroy();
          finish();
        }
      }, timeoutMs);
      request.on('error', () => {
        if (!done) {
          errors += 1;
          finish();
        }
      });
      request.end();
    });

  const inFlight = new Set<Promise<void>>();
  const started = performance.now();
  let next = 0;
  await new Promise<void>((resolve) => {
    const tick = () => {
      const now = performance.now();
      while (next < total && started + next * intervalMs <= now) {
        const scheduledAt = started + next * intervalMs;
        maxSendLagMs = Math.max(maxSendLagMs, now - scheduledAt);
        const spec = options.requests[next % options.requests.length];
        next += 1;
        if (spec) {
          const sending: Promise<void> = send(spec, scheduledAt).then(() => {
            inFlight.delete(sending);
          });
          inFlight.add(sending);
        }
      }
      if (next >= total) {
        resolve();
        return;
      }
      setTimeout(tick, Math.max(0, Math.min(5, started + next * intervalMs - performance.now())));
    };
    tick();
  });
  await Promise.all(inFlight);
  agent.destroy();
  admitted.sort((left, right) => left - right);
  return {
    seconds: options.seconds,
    offeredRate: options.ratePerSecond,
    sent: total,
    answered,
    statusCodes,
    admittedLatenciesMs: admitted,
    errors,
    timeouts,
    maxSendLagMs: Math.round(maxSendLagMs),
  };
}
