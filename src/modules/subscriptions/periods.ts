/**
 * Calendar math for subscription periods, in UTC. Pure: no clock, no database.
 *
 * Every period boundary is computed from the subscription's anchor (the start of its first period,
 * or the moment a sandbox renewal re-anchored it), never from the previous boundary. That keeps the
 * anchor day: a monthly subscription anchored on Jan 31 ends its periods on Feb 28 (29 in leap
 * years), Mar 31, Apr 30, May 31, … instead of drifting to the 28th for ever.
 */
export const intervals = ['DAY', 'WEEK', 'MONTH', 'YEAR'] as const;
export type Interval = (typeof intervals)[number];

export interface Period {
  start: Date;
  end: Date;
}

const dayMs = 24 * 60 * 60 * 1000;

function daysInMonth(year: number, monthIndex: number): number {
  return new Date(Date.UTC(year, monthIndex + 1, 0)).getUTCDate();
}

function addMonths(anchor: Date, months: number): Date {
  const totalMonths = anchor.getUTCFullYear() * 12 + anchor.getUTCMonth() + months;
  const year = Math.floor(totalMonths / 12);
  const monthIndex = totalMonths - year * 12;
  // Clamp to the month's last day (Jan 31 + 1 month → Feb 28/29); the anchor keeps the 31st for later months.
  const day = Math.min(anchor.getUTCDate(), daysInMonth(year, monthIndex));
  const result = new Date(anchor.getTime());
  result.setUTCFullYear(year, monthIndex, day);
  return result;
}

/**
 * `anchor` moved forward by `count` intervals. DAY and WEEK are exact multiples of 24 h (UTC has no
 * daylight saving); MONTH and YEAR keep the anchor's day of month and time of day, clamped to the
 * last day of a shorter month (YEAR from Feb 29 → Feb 28 in common years).
 */
export function addIntervals(anchor: Date, interval: Interval, count: number): Date {
  if (!Number.isSafeInteger(count) || count < 0) {
    throw new RangeError(`count must be a non-negative integer, got ${count}`);
  }
  if (Number.isNaN(anchor.getTime())) {
    throw new RangeError('anchor must be a valid date');
  }
  switch (interval) {
    case 'DAY':
      return new Date(anchor.getTime() + count * dayMs);
    case 'WEEK':
      return new Date(anchor.getTime() + count * 7 * dayMs);
    case 'MONTH':
      return addMonths(anchor, count);
    case 'YEAR':
      return addMonths(anchor, count * 12);
  }
}

/**
 * The `index`-th period (0 = the first) of a subscription billed every `intervalCount` × `interval`
 * from `anchor`. Consecutive periods touch: period n ends exactly where period n + 1 starts.
 */
export function periodAt(anchor: Date, interval: Interval, intervalCount: number, index: number): Period {
  if (!Number.isSafeInteger(intervalCount) || intervalCount < 1) {
    throw new RangeError(`intervalCount must be a positive integer, got ${intervalCount}`);
  }
  if (!Number.isSafeInteger(index) || index < 0) {
    throw new RangeError(`index must be a non-negative integer, got ${index}`);
  }
  return {
    start: addIntervals(anchor, interval, index * intervalCount),
    end: addIntervals(anchor, interval, (index + 1) * intervalCount),
  };
}

export interface Schedule {
  anchorAt: Date;
  /** The current period's number counted from the anchor (0 = the period starting at the anchor). */
  anchorPeriodIndex: number;
  interval: Interval;
  intervalCount: number;
}

/**
 * The period a renewal paid at `paidAt` buys, following the current period that ends at `currentEnd`,
 * and the schedule to keep. Normally the next period of the schedule. Two cases start a new schedule
 * (anchor) instead: the current period was ended early (the sandbox renewal helper ends it "now", so
 * the schedule's next period no longer starts where it ended) → anchored at `currentEnd`; and a late
 * retry paid after the next period had already ended (short intervals) → anchored at `paidAt`, so a
 * renewal never buys a period that is already over.
 */
export function nextPeriod(schedule: Schedule, currentEnd: Date, paidAt: Date): { schedule: Schedule; period: Period } {
  const following = periodAt(schedule.anchorAt, schedule.interval, schedule.intervalCount, schedule.anchorPeriodIndex + 1);
  const continuesSchedule = following.start.getTime() === currentEnd.getTime();
  if (continuesSchedule && following.end.getTime() > paidAt.getTime()) {
    return { schedule: { ...schedule, anchorPeriodIndex: schedule.anchorPeriodIndex + 1 }, period: following };
  }
  let anchorAt = currentEnd;
  if (continuesSchedule || periodAt(currentEnd, schedule.interval, schedule.intervalCount, 0).end.getTime() <= paidAt.getTime()) {
    anchorAt = paidAt;
  }
  return { schedule: { ...schedule, anchorAt, anchorPeriodIndex: 0 }, period: periodAt(anchorAt, schedule.interval, schedule.intervalCount, 0) };
}
