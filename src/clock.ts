/** Where every module reads the time: the system clock in production, a test clock in tests. */
export interface Clock {
  now(): Date;
}

export const systemClock: Clock = { now: () => new Date() };
