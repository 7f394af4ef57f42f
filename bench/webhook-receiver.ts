// The webhook benches' receiver and what they count (bench/webhooks.ts, bench/webhooks-tenants.ts):
// a node:http server in a worker thread answering 204 and reporting each request's webhook-id,
// arrival time and the status it answered; the worker's delivery records of a phase; and a row's
// Measurement built only from those counts (no status or total is assumed). Not a bench itself.
import { Worker as Thread } from 'node:worker_threads';
import { inArray, sql } from 'drizzle-orm';
import type { Database } from '../src/db/client.ts';
import { webhookDeliveries } from '../src/db/schema/index.ts';
import type { Measurement } from './harness.ts';

/** What the receiver and the worker's records say about one phase's deliveries (all measured). */
export interface PhaseCounts {
  /** Requests the receiver got (more than the events when a delivery was repeated). */
  requests: number;
  /** The statuses the receiver answered those requests with. */
  statusCodes: Record<string, number>;
  /** Deliveries of the phase's events recorded SUCCEEDED. */
  succeeded: number;
  /** Attempts the worker recorded as failed (attempts beyond the one that succeeded, and deliveries not SUCCEEDED). */
  failedAttempts: number;
  /** Of those, deliveries whose last error was a timeout. */
  timeouts: number;
}

/** The receiver thread: answers 204 and reports `[webhook-id, arrival ms, status answered]` in batches. */
const receiverSource = `
const http = require('node:http');
const { parentPort } = require('node:worker_threads');
let batch = [];
setInterval(() => { if (batch.length) { parentPort.postMessage(batch); batch = []; } }, 20).unref();
const server = http.createServer({ keepAliveTimeout: 30000 }, (request, response) => {
  request.resume();
  request.on('end', () => {
    response.writeHead(204);
    response.end();
    batch.push([request.headers['webhook-id'], Date.now(), response.statusCode]);
  });
});
server.listen(0, '127.0.0.1', () => parentPort.postMessage({ port: server.address().port }));
parentPort.on('message', (message) => { if (message === 'close') { server.closeAllConnections(); server.close(() => process.exit(0)); } });
`;

export interface Receiver {
  url: string;
  arrivals: Map<string, number>;
  requests: () => number;
  /** Requests answered so far, by status. */
  statusCodes: () => Record<string, number>;
  close(): Promise<void>;
}

export async function startReceiver(): Promise<Receiver> {
  const thread = new Thread(receiverSource, { eval: true });
  const arrivals = new Map<string, number>();
  let requests = 0;
  const statusCodes: Record<string, number> = {};
  const port = await new Promise<number>((resolve) => {
    thread.on('message', (message: { port: number } | Array<[string, number, number]>) => {
      if (Array.isArray(message)) {
        for (const [id, at, status] of message) {
          requests += 1;
          statusCodes[status] = (statusCodes[status] ?? 0) + 1;
          if (!arrivals.has(id)) {
            arrivals.set(id, at);
          }
        }
      } else {
        resolve(message.port);
      }
    });
  });
  return {
    url: `http://127.0.0.1:${port}/hooks`,
    arrivals,
    requests: () => requests,
    statusCodes: () => ({ ...statusCodes }),
    close: async () => {
      thread.postMessage('close');
      await new Promise((resolve) => thread.once('exit', resolve));
    },
  };
}

/** The receiver's counts since `before`, and the worker's records of the deliveries of `eventIds`. */
export async function phaseCounts(database: Database, receiver: Receiver, before: { requests: number; statusCodes: Record<string, number> }, eventIds: readonly string[]): Promise<PhaseCounts> {
  const statusCodes: Record<string, number> = {};
  for (const [status, total] of Object.entries(receiver.statusCodes())) {
    const during = total - (before.statusCodes[status] ?? 0);
    if (during > 0) {
      statusCodes[status] = during;
    }
  }
  const [row] = await database.db
    .select({
      succeeded: sql<number>`count(*) filter (where ${webhookDeliveries.status} = 'SUCCEEDED')::int`,
      failedAttempts: sql<number>`coalesce(sum(${webhookDeliveries.attemptCount} - case when ${webhookDeliveries.status} = 'SUCCEEDED' then 1 else 0 end), 0)::int`,
      timeouts: sql<number>`count(*) filter (where ${webhookDeliveries.lastError} ilike '%timeout%' or ${webhookDeliveries.lastError} ilike '%timed out%')::int`,
    })
    .from(webhookDeliveries)
    .where(inArray(webhookDeliveries.eventId, [...eventIds]));
  return { requests: receiver.requests() - before.requests, statusCodes, succeeded: row?.succeeded ?? 0, failedAttempts: row?.failedAttempts ?? 0, timeouts: row?.timeouts ?? 0 };
}

/**
 * A row's measurement from what was counted: the receiver's requests and the statuses it answered
 * (ok = 2xx answers, non2xx = the others), and the worker's failed attempts (errors) and timeouts as
 * its delivery records show them. The harness marks the row INVALID when any is off.
 */
export function countedMeasurement(requestsPerSecond: number, p50Ms: number, p99Ms: number, counts: PhaseCounts): Measurement {
  const answered = Object.entries(counts.statusCodes);
  const ok = answered.filter(([status]) => status.startsWith('2')).reduce((sum, [, total]) => sum + total, 0);
  return {
    requestsPerSecond,
    p50Ms,
    p99Ms,
    requests: counts.requests,
    ok,
    non2xx: counts.requests - ok,
    errors: counts.failedAttempts,
    timeouts: counts.timeouts,
    statusCodes: counts.statusCodes,
    cpuMsPerRequest: null,
  };
}
