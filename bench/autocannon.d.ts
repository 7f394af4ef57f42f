// The slice of autocannon 8's programmatic API the benches use (the package ships no types).
declare module 'autocannon' {
  export interface RawRequest {
    method?: string;
    path?: string;
    headers?: Record<string, string>;
    body?: string | Buffer;
  }

  export interface RequestSpec extends RawRequest {
    setupRequest?: (request: RawRequest, context: Record<string, unknown>) => RawRequest | null;
  }

  export interface Options {
    url: string;
    connections?: number;
    duration?: number;
    pipelining?: number;
    timeout?: number;
    method?: string;
    headers?: Record<string, string>;
    body?: string;
    requests?: RequestSpec[];
    skipAggregateResult?: boolean;
  }

  export interface Histogram {
    average: number;
    mean: number;
    stddev: number;
    min: number;
    max: number;
    total: number;
    sent?: number;
    p50: number;
    p90: number;
    p97_5: number;
    p99: number;
  }

  export interface Result {
    requests: Histogram;
    latency: Histogram;
    throughput: Histogram;
    duration: number;
    errors: number;
    timeouts: number;
    non2xx: number;
    statusCodeStats: Record<string, { count: number }>;
  }

  /** Raw (not yet aggregated) results: what `autocannon()` resolves to with `skipAggregateResult` or in a worker thread. */
  export interface RawResult {
    duration: number;
    totalCompletedRequests: number;
    errors: number;
    timeouts: number;
    non2xx: number;
    statusCodeStats: Record<string, { count: number }>;
  }

  interface Autocannon {
    /** Resolves to a `Result`, or a `RawResult` with `skipAggregateResult` or inside a worker thread. */
    (options: Options): Promise<Result | RawResult>;
    aggregateResult(results: RawResult[], options?: Options): Result;
  }
  const autocannon: Autocannon;
  export default autocannon;
}
