import { wrongParameter } from '../../http/errors.ts';
import { field } from './context.ts';

export const dayMs = 24 * 60 * 60 * 1000;

/** `YYYY-MM-DD` (a UTC day) → epoch ms of its start; '' → undefined; anything else → 400 naming the field. */
export function parseDay(raw: string, name: string): number | undefined {
  if (raw === '') {
    return undefined;
  }
  const time = /^\d{4}-\d{2}-\d{2}$/.test(raw) ? Date.parse(`${raw}T00:00:00.000Z`) : Number.NaN;
  if (Number.isNaN(time) || new Date(time).toISOString().slice(0, 10) !== raw) {
    throw wrongParameter(name, 'must be a day written YYYY-MM-DD');
  }
  return time;
}

export function utcDay(time: number | Date): string {
  return new Date(time).toISOString().slice(0, 10);
}

/** The overview's ready-made periods, each ending today (UTC); "custom" is any `from`–`to`. */
export const rangePresets = {
  '7d': { label: 'Last 7 days', days: 7 },
  '30d': { label: 'Last 30 days', days: 30 },
  '90d': { label: 'Last 90 days', days: 90 },
  '12m': { label: 'Last 12 months', days: 365 },
  mtd: { label: 'Month to date', days: 0 },
} as const;
export type RangePreset = keyof typeof rangePresets;
export const defaultRangePreset: RangePreset = '30d';
/** A custom period is at most two years, so a comparison reads at most four years of rows. */
export const maximumRangeDays = 731;

/** A period of whole UTC days, `from` inclusive to `to` inclusive, and the period of equal length just before it. */
export interface DayRange {
  preset: RangePreset | 'custom';
  /** Epoch ms of the first day's start. */
  from: number;
  /** Epoch ms of the last day's start (the period ends a day later). */
  to: number;
  days: number;
  previous: { from: number; to: number };
}

function isPreset(value: string): value is RangePreset {
  return Object.hasOwn(rangePresets, value);
}

/**
 * The period a screen's query asks for: `range` (a preset) or `from` and `to` (UTC days, both
 * needed, `to` not before `from`, not after today, at most `maximumRangeDays` days); no parameter →
 * the default preset. A bad value is 400 WRONG_PARAMETER naming it.
 */
export function parseDayRange(query: unknown, now: Date): DayRange {
  const today = Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate());
  const rawRange = field(query, 'range', 20);
  const from = parseDay(field(query, 'from', 20), 'from');
  const to = parseDay(field(query, 'to', 20), 'to');
  if (rawRange !== '' && rawRange !== 'custom' && !isPreset(rawRange)) {
    throw wrongParameter('range', `must be one of ${Object.keys(rangePresets).join(', ')} or custom`);
  }
  if (rawRange === 'custom' || (rawRange === '' && (from !== undefined || to !== undefined))) {
    if (from === undefined) {
      throw wrongParameter('from', 'is required for a custom period');
    }
    if (to === undefined) {
      throw wrongParameter('to', 'is required for a custom period');
    }
    if (to < from) {
      throw wrongParameter('to', 'must not be before from');
    }
    if (to > today) {
      throw wrongParameter('to', 'must not be after today');
    }
    const days = Math.round((to - from) / dayMs) + 1;
    if (days > maximumRangeDays) {
      throw wrongParameter('from', `must be at most ${maximumRangeDays} days before to`);
    }
    return withPrevious('custom', from, to);
  }
  const preset = rawRange === '' ? defaultRangePreset : rawRange;
  const start = preset === 'mtd' ? Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), 1) : today - (rangePresets[preset].days - 1) * dayMs;
  return withPrevious(preset, start, today);
}

function withPrevious(preset: DayRange['preset'], from: number, to: number): DayRange {
  const days = Math.round((to - from) / dayMs) + 1;
  return { preset, from, to, days, previous: { from: from - days * dayMs, to: from - dayMs } };
}

/** "1 Nov 2026 – 30 Nov 2026" for a period of UTC days. */
export function describeRange(range: { from: number; to: number }): string {
  const format = new Intl.DateTimeFormat('en-GB', { day: 'numeric', month: 'short', year: 'numeric', timeZone: 'UTC' });
  return range.from === range.to ? format.format(range.from) : `${format.format(range.from)} – ${format.format(range.to)}`;
}

/** A list screen's optional period (`from`/`to`, UTC days, both ends included), as the form shows it and as the query filters by it. */
export interface ListPeriod {
  from: string;
  to: string;
  createdFrom?: Date | undefined;
  createdBefore?: Date | undefined;
}

/** No period: every row of the list. */
export const anyTime: ListPeriod = { from: '', to: '' };

/** `from` and `to` of a list's query (either may be empty); a bad day or `to` before `from` is 400 naming it. */
export function parseListPeriod(query: unknown): ListPeriod {
  const from = field(query, 'from', 20);
  const to = field(query, 'to', 20);
  const start = parseDay(from, 'from');
  const end = parseDay(to, 'to');
  if (start !== undefined && end !== undefined && end < start) {
    throw wrongParameter('to', 'must not be before from');
  }
  return { from, to, createdFrom: start === undefined ? undefined : new Date(start), createdBefore: end === undefined ? undefined : new Date(end + dayMs) };
}
