/** Nearest-rank percentile of ascending `sorted` values (`fraction` 0–1); NaN when there are none. */
export function percentile(sorted: readonly number[], fraction: number): number {
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(fraction * sorted.length) - 1))] ?? Number.NaN;
}

/** Milliseconds since `since` (a `process.hrtime.bigint()` reading). */
export function elapsedMs(since: bigint): number {
  return Number(process.hrtime.bigint() - since) / 1e6;
}
