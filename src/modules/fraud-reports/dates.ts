/** Fraud report dates: `YYYY-MM-DD hh:mm:ss`, always UTC (docs/API.md §10). */
export function formatReportDate(date: Date): string {
  return date.toISOString().slice(0, 19).replace('T', ' ');
}

/** Parses `YYYY-MM-DD hh:mm:ss` (UTC), or `YYYY-MM-DD` when `allowDateOnly`; null when not a real date. */
export function parseReportDate(value: string, options: { allowDateOnly?: boolean } = {}): Date | null {
  const match = /^(\d{4})-(\d{2})-(\d{2})(?: (\d{2}):(\d{2}):(\d{2}))?$/.exec(value.trim());
  if (!match || (match[4] === undefined && !options.allowDateOnly)) {
    return null;
  }
  const [year, month, day, hour, minute, second] = match.slice(1).map((part) => Number(part ?? 0));
  const date = new Date(Date.UTC(year ?? 0, (month ?? 1) - 1, day ?? 0, hour ?? 0, minute ?? 0, second ?? 0));
  const roundTrip = formatReportDate(date);
  const expected = `${match[1]}-${match[2]}-${match[3]} ${match[4] ?? '00'}:${match[5] ?? '00'}:${match[6] ?? '00'}`;
  return roundTrip === expected ? date : null;
}
