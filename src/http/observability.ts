import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from 'prom-client';

export interface Metrics {
  readonly registry: Registry;
  readonly httpRequests: Counter<'method' | 'route' | 'status'>;
  readonly httpDuration: Histogram<'method' | 'route'>;
  readonly jobs: Counter<'queue' | 'outcome'>;
  readonly jobDuration: Histogram<'queue'>;
}

/** One registry per platform instance (tests build many in one process). */
export function createMetrics(): Metrics {
  const registry = new Registry();
  collectDefaultMetrics({ register: registry });
  return {
    registry,
    httpRequests: new Counter({ name: 'paysail_http_requests_total', help: 'HTTP requests by route and status', labelNames: ['method', 'route', 'status'], registers: [registry] }),
    httpDuration: new Histogram({
      name: 'paysail_http_request_duration_seconds',
      help: 'HTTP request duration',
      labelNames: ['method', 'route'],
      buckets: [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5],
      registers: [registry],
    }),
    jobs: new Counter({ name: 'paysail_jobs_total', help: 'Jobs finished by queue and outcome', labelNames: ['queue', 'outcome'], registers: [registry] }),
    jobDuration: new Histogram({ name: 'paysail_job_duration_seconds', help: 'Job run time', labelNames: ['queue'], registers: [registry] }),
  };
}

/**
 * The worker's `onJobFinished`: counts the job and observes its run time. The label children are
 * kept per queue and outcome (prom-client hashes the labels on every call otherwise, and a webhook
 * backlog finishes thousands of jobs a second).
 */
export function jobMetricsRecorder(metrics: Metrics): (queue: string, outcome: string, durationMs: number) => void {
  const counts = new Map<string, { inc(): void }>();
  const durations = new Map<string, { observe(value: number): void }>();
  return (queue, outcome, durationMs) => {
    const countKey = `${queue}|${outcome}`;
    let count = counts.get(countKey);
    if (count === undefined) {
      count = metrics.jobs.labels({ queue, outcome });
      counts.set(countKey, count);
    }
    count.inc();
    let duration = durations.get(queue);
    if (duration === undefined) {
      duration = metrics.jobDuration.labels({ queue });
      durations.set(queue, duration);
    }
    duration.observe(durationMs / 1000);
  };
}

/**
 * Payouts waiting for the operator to fund the payout rail: how many and how much, by currency and
 * mode, read from the database at each scrape (`read` returns the current totals).
 */
export function registerAwaitingFundingGauges(metrics: Metrics, read: () => Promise<Array<{ currency: string; livemode: boolean; count: number; amount: number }>>): void {
  let pending: ReturnType<typeof read> | null = null;
  // One read per scrape serves both gauges.
  const totals = () => {
    pending ??= read().finally(() => {
      pending = null;
    });
    return pending;
  };
  const labelNames = ['currency', 'livemode'] as const;
  const gauges = [
    { name: 'paysail_payouts_awaiting_funding', help: 'Payouts waiting for the operator to fund the payout rail account', value: (row: { count: number }) => row.count },
    { name: 'paysail_payouts_awaiting_funding_amount', help: 'Amount (minor units) of the payouts waiting for the operator to fund the payout rail account', value: (row: { amount: number }) => row.amount },
  ];
  for (const gauge of gauges) {
    new Gauge({
      name: gauge.name,
      help: gauge.help,
      labelNames,
      registers: [metrics.registry],
      async collect() {
        this.reset();
        for (const row of await totals()) {
          this.set({ currency: row.currency, livemode: String(row.livemode) }, gauge.value(row));
        }
      },
    });
  }
}
