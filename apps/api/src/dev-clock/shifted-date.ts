// The JavaScript half of the development clock (docs/decisions/021-one-clock-for-every-sandbox.md):
// a process-wide offset that `Date` and `Date.now()` add once it is not 0. Every library that asks
// the time (jose's `exp` checks, the in-process Stripe and App Store sandboxes, the services) then
// sees the moved clock without being told. Timers and `performance.now()` are left alone: a
// duration (a timeout, a retry's backoff) stays a real duration.
const RealDate = globalThis.Date;

let offsetMs = 0;

/**
 * Stands in for the global `Date` while the clock is moved. Every date it makes is a real Date
 * (same prototype), so `instanceof Date`, `toISOString` and the database drivers behave as ever;
 * only "now" (no argument) is shifted.
 */
function ShiftedDate(this: unknown, ...args: unknown[]): unknown {
  // Called without `new`, Date returns the current time as a string.
  if (!new.target) return new RealDate(RealDate.now() + offsetMs).toString();
  const now = args.length === 0 ? [RealDate.now() + offsetMs] : args;
  return Reflect.construct(RealDate, now, new.target as typeof RealDate);
}
ShiftedDate.prototype = RealDate.prototype;
ShiftedDate.now = (): number => RealDate.now() + offsetMs;
ShiftedDate.parse = RealDate.parse;
ShiftedDate.UTC = RealDate.UTC;

/** How far the process's clock is ahead of the real one, in milliseconds. */
export function clockOffsetMs(): number {
  return offsetMs;
}

/**
 * Moves the process's clock to `offset` ms ahead of the real one (never behind: time moved back
 * would let tokens and leases live twice). 0 puts the real `Date` back.
 */
export function setClockOffsetMs(offset: number): void {
  if (!Number.isSafeInteger(offset) || offset < 0) {
    throw new RangeError(`the clock's offset must be a whole number of ms ≥ 0, got ${offset}`);
  }
  // Unmoved, nothing is touched: a server starting on a fresh database (offset 0) must leave a
  // test's own fake Date (vi.useFakeTimers) in place, or its moves would silently stop counting.
  if (offset === offsetMs) return;
  offsetMs = offset;
  globalThis.Date = (offset === 0 ? RealDate : ShiftedDate) as DateConstructor;
}

/** Whether the global `Date` is the real one (tests check that closing the server restores it). */
export function isRealDate(): boolean {
  return globalThis.Date === RealDate;
}
