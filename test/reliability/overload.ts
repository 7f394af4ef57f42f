import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import autocannon, { type Options, type Result } from 'autocannon';
import { createPostgresTestDatabase } from '../helpers/database.ts';
import { childEnv, freePort, ServiceProcess } from './processes.ts';
import { percentile, runPacedLoad } from './paced-load.ts';

/**
 * Overload harness (issue 9, item 6): one real Paysail process (`src/main.ts`, PGlite in a temp
 * directory or a fresh PostgreSQL database when DATABASE_URL is set) with a global in-flight limit
 * (MAX_IN_FLIGHT_REQUESTS), event-loop-delay shedding (MAX_EVENT_LOOP_DELAY_MS) and the per-key rate limit, driven by autocannon from this process:
 *
 * 1. capacity: `maxInFlight` connections, closed loop (autocannon) → admitted (2xx) requests per second;
 * 2. unloaded: an evenly paced open loop at a tenth of that (paced-load.ts) → the unloaded p99;
 * 3. overload: the same paced open loop at `factor` × capacity for `overloadSeconds`, sampling the
 *    server's RSS every second → every non-2xx must be a 429 or 503 envelope with Retry-After, no
 *    connection errors or timeouts; p99 of admitted (2xx) requests, measured from each request's
 *    scheduled send time, against the unloaded p99, and the RSS growth from the first to the last
 *    sample.
 *
 * Timings are reported, not asserted by the CI test (one shared 2-core machine); the soak version
 * (`npm run soak -- --only overload`) runs 60 s and then 10 minutes for the memory figure.
 */

declare module 'autocannon' {
  interface Options {
    /** Requests per second over all connections. */
    overallRate?: number;
  }
  interface RequestSpec {
    onResponse?: (status: number, body: string, context: Record<string, unknown>, headers: Record<string, string>) => void;
  }
}

export interface OverloadOptions {
  /** Seconds of each measurement before the overload (unloaded p99, capacity). */
  measureSeconds: number;
  /** Seconds at `factor` × capacity. */
  overloadSeconds: number;
  /** Multiple of the measured capacity offered during the overload. Default 2. */
  factor?: number;
  /** MAX_IN_FLIGHT_REQUESTS of the server. Default 4: about what one process with an embedded database works on at once without queueing (see docs/reliability/model-overload.md). */
  maxInFlight?: number;
  /** MAX_EVENT_LOOP_DELAY_MS of the server. Default 3: a latency-bounded setting (docs/reliability/model-overload.md). */
  maxEventLoopDelayMs?: number;
  /** RATE_LIMIT_PER_SECOND of the server (per API key; burst twice that). Default 100, the production default. */
  rateLimitPerSecond?: number;
  /** API keys (merchants) the load is spread over. Default 32, so that the per-key rate limit (32 × 100/s) stays above the server's capacity and the server's own shedding is what is measured. */
  keys?: number;
  log?: (line: string) => void;
}

export interface OverloadPhase {
  seconds: number;
  /** 0 for an open-loop (paced) phase. */
  connections: number;
  offeredRate: number | null;
  requests: number;
  admitted: number;
  admittedPerSecond: number;
  p50Ms: number;
  p99Ms: number;
  statusCodes: Record<string, number>;
  errors: number;
  timeouts: number;
  /** Paced phases: how late the load generator itself sent, at worst (its own lag counts in the latencies). */
  clientLagMs?: number;
}

export interface OverloadSummary {
  database: 'pglite' | 'postgres';
  maxInFlight: number;
  maxEventLoopDelayMs: number;
  rateLimitPerSecond: number;
  unloaded: OverloadPhase;
  capacity: OverloadPhase;
  overload: OverloadPhase;
  /** overload p99 (admitted requests) ÷ unloaded p99. */
  p99Ratio: number;
  /** Non-2xx answers that were not a 429/503 envelope with Retry-After (first 20), plus errors and timeouts. */
  violations: string[];
  refused: { rateLimited: number; shed: number };
  rss: { firstMb: number; lastMb: number; maxMb: number; growthPercent: number; samples: number };
}

/** The server's resident set size (Linux), in bytes. */
export function rssOf(pid: number): number | null {
  try {
    const status = fs.readFileSync(`/proc/${pid}/status`, 'utf8');
    const match = /VmRSS:\s+(\d+)\s+kB/.exec(status);
    return match?.[1] ? Number(match[1]) * 1024 : null;
  } catch {
    return null;
  }
}

const adminKey = 'adm_overload_0123456789abcdefghijklmnop';

/** Setup requests honour load shedding like a client should: a 503 is retried (the server may be busy starting). */
async function fetchRetrying(url: string, init: RequestInit): Promise<Response> {
  for (let attempt = 0; ; attempt += 1) {
    const response = await fetch(url, init);
    if (response.status !== 503 || attempt >= 50) {
      return response;
    }
    await response.arrayBuffer();
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
}

interface Target {
  server: ServiceProcess;
  url: string;
  apiKeys: string[];
  pageIds: string[];
  close(): Promise<void>;
}

async function startTarget(options: Required<Pick<OverloadOptions, 'maxInFlight' | 'maxEventLoopDelayMs' | 'rateLimitPerSecond' | 'keys'>>): Promise<Target & { database: 'pglite' | 'postgres' }> {
  const port = await freePort();
  const postgres = process.env.DATABASE_URL ? await createPostgresTestDatabase() : null;
  const dataDir = postgres ? null : fs.mkdtempSync(path.join(os.tmpdir(), 'paysail-overload-'));
  const server = new ServiceProcess(
    'overload-api',
    'all',
    childEnv({
      ADMIN_API_KEY: adminKey,
      LOG_LEVEL: 'error',
      MAX_IN_FLIGHT_REQUESTS: String(options.maxInFlight),
      MAX_EVENT_LOOP_DELAY_MS: String(options.maxEventLoopDelayMs),
      RATE_LIMIT_PER_SECOND: String(options.rateLimitPerSecond),
      RATE_LIMIT_BURST: String(options.rateLimitPerSecond * 2),
      ...(postgres ? { DATABASE_URL: postgres.url } : { DATA_DIR: dataDir ?? '' }),
    }),
    port,
  );
  const close = async () => {
    await server.stop('SIGTERM');
    await postgres?.drop();
    if (dataDir) {
      fs.rmSync(dataDir, { recursive: true, force: true });
    }
  };
  try {
    await server.start();
    const url = server.url;
    const apiKeys: string[] = [];
    const pageIds: string[] = [];
    for (let index = 0; index < options.keys; index += 1) {
      const created = await fetchRetrying(`${url}/admin/v1/merchants`, {
        method: 'POST',
        headers: { authorization: `Bearer ${adminKey}`, 'content-type': 'application/json' },
        body: JSON.stringify({ name: `Overload ${index}`, email: `overload-${index}@example.com` }),
      });
      const body = (await created.json()) as { data?: { apiKey: string } };
      if (created.status !== 200 || !body.data) {
        throw new Error(`creating a merchant answered ${created.status}`);
      }
      apiKeys.push(body.data.apiKey);
      const page = await fetchRetrying(`${url}/v1/payout_pages?livemode=false`, {
        method: 'POST',
        headers: { authorization: `Basic ${Buffer.from(`${body.data.apiKey}:`).toString('base64')}`, 'content-type': 'application/json' },
        body: JSON.stringify({ amount: 1_000, fundingCurrency: 'USDC', clientReferenceId: `overload-${index}`, releaseMethod: 'MANUAL', customer: { referenceId: `overload-${index}`, email: 'load@example.com' } }),
      });
      const pageBody = (await page.json()) as { data?: { id: string } };
      if (page.status !== 200 || !pageBody.data) {
        throw new Error(`creating a payout page answered ${page.status}`);
      }
      pageIds.push(pageBody.data.id);
    }
    return { server, url, apiKeys, pageIds, close, database: postgres ? 'postgres' : 'pglite' };
  } catch (error) {
    await close();
    throw error;
  }
}

/** The API requests the load cycles through: the balance and a payout page read, spread over every key. */
function requestsFor(target: Target, onResponse?: (status: number, body: string, headers: Record<string, string>) => void): NonNullable<Options['requests']> {
  return target.apiKeys.flatMap((apiKey, index) => {
    const headers = { authorization: `Basic ${Buffer.from(`${apiKey}:`).toString('base64')}` };
    const respond = onResponse ? { onResponse: (status: number, body: string, _context: Record<string, unknown>, responseHeaders: Record<string, string>) => onResponse(status, body, responseHeaders) } : {};
    return [
      { method: 'GET', path: '/v1/balance?livemode=false', headers, ...respond },
      { method: 'GET', path: `/v1/payout_pages/${target.pageIds[index] ?? ''}`, headers, ...respond },
    ];
  });
}

async function measure(target: Target, options: { seconds: number; connections: number; rate?: number; onResponse?: (status: number, body: string, headers: Record<string, string>) => void }): Promise<OverloadPhase> {
  const result = (await autocannon({
    url: target.url,
    connections: options.connections,
    duration: options.seconds,
    timeout: 10,
    requests: requestsFor(target, options.onResponse),
    ...(options.rate ? { overallRate: options.rate } : {}),
  })) as Result;
  const statusCodes = Object.fromEntries(Object.entries(result.statusCodeStats).map(([code, stats]) => [code, stats.count]));
  const admitted = Object.entries(statusCodes)
    .filter(([code]) => code.startsWith('2'))
    .reduce((total, [, count]) => total + count, 0);
  const requests = Object.values(statusCodes).reduce((total, count) => total + count, 0);
  return {
    seconds: options.seconds,
    connections: options.connections,
    offeredRate: options.rate ?? null,
    requests,
    admitted,
    admittedPerSecond: Math.round(admitted / Math.max(0.001, result.duration)),
    p50Ms: result.latency.p50,
    p99Ms: result.latency.p99,
    statusCodes,
    errors: result.errors,
    timeouts: result.timeouts,
  };
}

/** An open-loop phase: `rate` requests a second, evenly spaced (paced-load.ts). */
async function measurePaced(target: Target, options: { seconds: number; rate: number; onResponse?: (status: number, body: string, headers: Record<string, string>) => void }): Promise<OverloadPhase> {
  const requests = requestsFor(target).map((spec) => ({ method: spec.method ?? 'GET', path: spec.path ?? '/', headers: (spec.headers ?? {}) as Record<string, string> }));
  const result = await runPacedLoad({ url: target.url, requests, ratePerSecond: options.rate, seconds: options.seconds, ...(options.onResponse ? { onResponse: options.onResponse } : {}) });
  const admitted = result.admittedLatenciesMs.length;
  return {
    seconds: options.seconds,
    connections: 0,
    offeredRate: options.rate,
    requests: result.answered,
    admitted,
    admittedPerSecond: Math.round(admitted / options.seconds),
    p50Ms: percentile(result.admittedLatenciesMs, 0.5),
    p99Ms: percentile(result.admittedLatenciesMs, 0.99),
    statusCodes: result.statusCodes,
    errors: result.errors,
    timeouts: result.timeouts,
    clientLagMs: result.maxSendLagMs,
  };
}

/** Checks one non-2xx answer: a 429 RATE_LIMITED or 503 SERVICE_UNAVAILABLE envelope with Retry-After. */
export function envelopeViolation(status: number, body: string, headers: Record<string, string>): string | null {
  if (status >= 200 && status < 300) {
    return null;
  }
  const expectedCode = status === 429 ? 'RATE_LIMITED' : status === 503 ? 'SERVICE_UNAVAILABLE' : null;
  if (!expectedCode) {
    return `HTTP ${status}: ${body.slice(0, 200)}`;
  }
  let parsed: Record<string, unknown>;
  try {
    parsed = JSON.parse(body) as Record<string, unknown>;
  } catch {
    return `HTTP ${status} without a JSON envelope: ${body.slice(0, 200)}`;
  }
  if (parsed.status !== 'FAILED' || parsed.errorCode !== expectedCode || typeof parsed.errorMessage !== 'string' || typeof parsed.requestId !== 'string') {
    return `HTTP ${status} with a wrong envelope: ${body.slice(0, 200)}`;
  }
  const retryAfter = headers['retry-after'] ?? headers['Retry-After'];
  if (!retryAfter || !/^\d+$/.test(retryAfter)) {
    return `HTTP ${status} without Retry-After`;
  }
  return null;
}

export async function runOverload(options: OverloadOptions): Promise<OverloadSummary> {
  const log = options.log ?? (() => undefined);
  const maxInFlight = options.maxInFlight ?? 4;
  const rateLimitPerSecond = options.rateLimitPerSecond ?? 100;
  const factor = options.factor ?? 2;
  const maxEventLoopDelayMs = options.maxEventLoopDelayMs ?? 3;
  const target = await startTarget({ maxInFlight, maxEventLoopDelayMs, rateLimitPerSecond, keys: options.keys ?? 32 });
  try {
    log(`overload: ${target.database}, MAX_IN_FLIGHT_REQUESTS=${maxInFlight}, MAX_EVENT_LOOP_DELAY_MS=${maxEventLoopDelayMs}, RATE_LIMIT_PER_SECOND=${rateLimitPerSecond} over ${target.apiKeys.length} keys`);
    // Warm-up (JIT, pools, caches), not measured.
    await measure(target, { seconds: Math.min(2, options.measureSeconds), connections: maxInFlight });
    const capacity = await measure(target, { seconds: options.measureSeconds, connections: maxInFlight });
    log(`  capacity: ${capacity.admittedPerSecond} admitted req/s at ${maxInFlight} connections, p99 ${capacity.p99Ms} ms`);
    const unloaded = await measurePaced(target, { seconds: options.measureSeconds, rate: Math.max(5, Math.round(capacity.admittedPerSecond / 10)) });
    log(`  unloaded: paced at ${unloaded.offeredRate ?? 0} req/s, p50 ${unloaded.p50Ms} ms, p99 ${unloaded.p99Ms} ms`);

    const violations: string[] = [];
    let violationCount = 0;
    const refused = { rateLimited: 0, shed: 0 };
    const rssSamples: number[] = [];
    const pid = target.server.pid;
    const sample = () => {
      const rss = pid === undefined ? null : rssOf(pid);
      if (rss !== null) {
        rssSamples.push(rss);
      }
    };
    sample();
    const sampler = setInterval(sample, 1_000);
    const rate = Math.max(1, Math.round(capacity.admittedPerSecond * factor));
    let overload: OverloadPhase;
    try {
      overload = await measurePaced(target, {
        seconds: options.overloadSeconds,
        rate,
        onResponse: (status, body, headers) => {
          if (status === 429) {
            refused.rateLimited += 1;
          } else if (status === 503) {
            refused.shed += 1;
          }
          const violation = envelopeViolation(status, body, headers);
          if (violation) {
            violationCount += 1;
            if (violations.length < 20) {
              violations.push(violation);
            }
          }
        },
      });
    } finally {
      clearInterval(sampler);
    }
    sample();
    if (overload.errors > 0) {
      violations.push(`${overload.errors} connection errors`);
    }
    if (overload.timeouts > 0) {
      violations.push(`${overload.timeouts} timeouts`);
    }
    if (violationCount > violations.length) {
      violations.push(`… ${violationCount} bad answers in all`);
    }
    const first = rssSamples[0] ?? 0;
    const last = rssSamples.at(-1) ?? 0;
    const summary: OverloadSummary = {
      database: target.database,
      maxInFlight,
      maxEventLoopDelayMs,
      rateLimitPerSecond,
      unloaded,
      capacity,
      overload,
      p99Ratio: unloaded.p99Ms > 0 ? Math.round((overload.p99Ms / unloaded.p99Ms) * 100) / 100 : 0,
      violations,
      refused,
      rss: {
        firstMb: Math.round(first / 1048576),
        lastMb: Math.round(last / 1048576),
        maxMb: Math.round(Math.max(0, ...rssSamples) / 1048576),
        growthPercent: first > 0 ? Math.round(((last - first) / first) * 1000) / 10 : 0,
        samples: rssSamples.length,
      },
    };
    log(
      `  overload: offered ${rate} req/s (${factor}× capacity) for ${options.overloadSeconds} s: ${overload.requests} answers, ${overload.admittedPerSecond} admitted/s, ` +
        `${refused.shed} shed (503), ${refused.rateLimited} rate limited (429); admitted p99 ${overload.p99Ms} ms = ${summary.p99Ratio}× unloaded; ` +
        `RSS ${summary.rss.firstMb} → ${summary.rss.lastMb} MB (${summary.rss.growthPercent} %); ${violations.length === 0 ? 'no violations' : `violations: ${violations.join('; ')}`}`,
    );
    return summary;
  } finally {
    await target.close();
  }
}
