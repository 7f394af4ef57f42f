import type { Clock } from '../../src/clock.ts';

/** A clock tests move by hand: no real waits for retries, expiries or KYC delays. */
export class TestClock implements Clock {
  private current: number;
  constructor(start: Date | number = Date.now()) {
    this.current = typeof start === 'number' ? start : start.getTime();
  }
  now(): Date {
    return new Date(this.current);
  }
  advance(ms: number): void {
    this.current += ms;
  }
  set(time: Date | number): void {
    this.current = typeof time === 'number' ? time : time.getTime();
  }
}
