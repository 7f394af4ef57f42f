import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { addIntervals, nextPeriod, periodAt, type Interval } from './periods.ts';

const utc = (iso: string) => new Date(`${iso}Z`);
const iso = (date: Date) => date.toISOString().replace('.000Z', '');

function ends(anchor: string, interval: Interval, intervalCount: number, periods: number): string[] {
  return Array.from({ length: periods }, (_, index) => iso(periodAt(utc(anchor), interval, intervalCount, index).end));
}

describe('subscription periods (UTC calendar math)', () => {
  test('DAY and WEEK are exact multiples of 24 h, across month, year and leap-day boundaries', () => {
    assert.deepEqual(ends('2024-02-27T10:30:00', 'DAY', 1, 4), ['2024-02-28T10:30:00', '2024-02-29T10:30:00', '2024-03-01T10:30:00', '2024-03-02T10:30:00']);
    assert.deepEqual(ends('2023-12-30T23:59:59', 'DAY', 2, 2), ['2024-01-01T23:59:59', '2024-01-03T23:59:59']);
    assert.deepEqual(ends('2024-12-25T00:00:00', 'WEEK', 1, 2), ['2025-01-01T00:00:00', '2025-01-08T00:00:00']);
    assert.deepEqual(ends('2024-03-01T00:00:00', 'WEEK', 3, 1), ['2024-03-22T00:00:00']);
  });

  test('a month from Jan 31 is the end of February; the anchor day comes back where it exists', () => {
    assert.deepEqual(ends('2024-01-31T12:00:00', 'MONTH', 1, 6), [
      '2024-02-29T12:00:00',
      '2024-03-31T12:00:00',
      '2024-04-30T12:00:00',
      '2024-05-31T12:00:00',
      '2024-06-30T12:00:00',
      '2024-07-31T12:00:00',
    ]);
    assert.deepEqual(ends('2023-01-31T00:00:00', 'MONTH', 1, 2), ['2023-02-28T00:00:00', '2023-03-31T00:00:00']);
    assert.deepEqual(ends('2024-03-30T08:00:00', 'MONTH', 1, 2), ['2024-04-30T08:00:00', '2024-05-30T08:00:00']);
  });

  test('MONTH with intervalCount crosses years and clamps only the months that are short', () => {
    assert.deepEqual(ends('2023-08-31T00:00:00', 'MONTH', 6, 3), ['2024-02-29T00:00:00', '2024-08-31T00:00:00', '2025-02-28T00:00:00']);
    assert.deepEqual(ends('2024-11-30T00:00:00', 'MONTH', 3, 2), ['2025-02-28T00:00:00', '2025-05-30T00:00:00']);
    assert.deepEqual(ends('2024-10-15T00:00:00', 'MONTH', 12, 1), ['2025-10-15T00:00:00']);
  });

  test('YEAR from Feb 29 lands on Feb 28 in common years and Feb 29 again in the next leap year', () => {
    assert.deepEqual(ends('2024-02-29T06:00:00', 'YEAR', 1, 4), ['2025-02-28T06:00:00', '2026-02-28T06:00:00', '2027-02-28T06:00:00', '2028-02-29T06:00:00']);
    assert.deepEqual(ends('2024-02-29T00:00:00', 'YEAR', 4, 1), ['2028-02-29T00:00:00']);
    // 2100 is not a leap year (divisible by 100, not by 400); 2000 was.
    assert.equal(iso(addIntervals(utc('2096-02-29T00:00:00'), 'YEAR', 4)), '2100-02-28T00:00:00');
    assert.equal(iso(addIntervals(utc('1996-02-29T00:00:00'), 'YEAR', 4)), '2000-02-29T00:00:00');
  });

  test('periods are contiguous: each one starts where the previous ended, and the first starts at the anchor', () => {
    for (const [anchor, interval, count] of [
      ['2024-01-31T23:59:59', 'MONTH', 1],
      ['2024-02-29T00:00:00', 'YEAR', 1],
      ['2024-05-31T07:00:00', 'MONTH', 2],
      ['2024-01-01T00:00:00', 'WEEK', 2],
    ] as const) {
      assert.equal(periodAt(utc(anchor), interval, count, 0).start.getTime(), utc(anchor).getTime());
      for (let index = 1; index < 30; index += 1) {
        const previous = periodAt(utc(anchor), interval, count, index - 1);
        const current = periodAt(utc(anchor), interval, count, index);
        assert.equal(current.start.getTime(), previous.end.getTime(), `${anchor} ${interval}×${count} period ${index}`);
        assert.ok(current.end.getTime() > current.start.getTime());
      }
    }
  });

  test('milliseconds of the anchor are kept', () => {
    assert.equal(addIntervals(new Date(Date.UTC(2024, 0, 31, 1, 2, 3, 456)), 'MONTH', 1).toISOString(), '2024-02-29T01:02:03.456Z');
  });

  test('invalid input is refused', () => {
    assert.throws(() => periodAt(utc('2024-01-01T00:00:00'), 'MONTH', 0, 0), RangeError);
    assert.throws(() => periodAt(utc('2024-01-01T00:00:00'), 'MONTH', 1, -1), RangeError);
    assert.throws(() => addIntervals(new Date(Number.NaN), 'DAY', 1), RangeError);
    assert.throws(() => addIntervals(utc('2024-01-01T00:00:00'), 'DAY', 1.5), RangeError);
  });
});

describe('nextPeriod (what a renewal buys)', () => {
  const monthly = { anchorAt: utc('2024-01-31T00:00:00'), anchorPeriodIndex: 0, interval: 'MONTH' as const, intervalCount: 1 };

  test('on time: the schedule next period, keeping the anchor day', () => {
    const first = nextPeriod(monthly, utc('2024-02-29T00:00:00'), utc('2024-02-29T00:00:05'));
    assert.equal(iso(first.period.start), '2024-02-29T00:00:00');
    assert.equal(iso(first.period.end), '2024-03-31T00:00:00');
    assert.equal(first.schedule.anchorPeriodIndex, 1);
    assert.equal(first.schedule.anchorAt.getTime(), monthly.anchorAt.getTime());
    const second = nextPeriod(first.schedule, first.period.end, first.period.end);
    assert.equal(iso(second.period.end), '2024-04-30T00:00:00');
    assert.equal(second.schedule.anchorPeriodIndex, 2);
  });

  test('a retry paid days late still buys the period that was due, while it lasts', () => {
    const late = nextPeriod(monthly, utc('2024-02-29T00:00:00'), utc('2024-03-05T00:00:00'));
    assert.equal(iso(late.period.start), '2024-02-29T00:00:00');
    assert.equal(iso(late.period.end), '2024-03-31T00:00:00');
  });

  test('a retry paid after the due period is over starts a new schedule at the payment', () => {
    const daily = { anchorAt: utc('2024-03-01T00:00:00'), anchorPeriodIndex: 0, interval: 'DAY' as const, intervalCount: 1 };
    const late = nextPeriod(daily, utc('2024-03-02T00:00:00'), utc('2024-03-05T12:00:00'));
    assert.equal(iso(late.period.start), '2024-03-05T12:00:00');
    assert.equal(iso(late.period.end), '2024-03-06T12:00:00');
    assert.equal(late.schedule.anchorPeriodIndex, 0);
    assert.equal(iso(late.schedule.anchorAt), '2024-03-05T12:00:00');
  });

  test('a period ended early re-anchors where it ended', () => {
    const early = nextPeriod(monthly, utc('2024-02-10T08:00:00'), utc('2024-02-10T08:00:00'));
    assert.equal(iso(early.period.start), '2024-02-10T08:00:00');
    assert.equal(iso(early.period.end), '2024-03-10T08:00:00');
    assert.equal(iso(early.schedule.anchorAt), '2024-02-10T08:00:00');
    assert.equal(early.schedule.anchorPeriodIndex, 0);
  });
});
