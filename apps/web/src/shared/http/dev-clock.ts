// The development clock, as the browser follows it: outside production the server moves its own
// time forward (POST /dev/clock, docs/testing.md) and says by how much in a cookie on each
// answer, the page's own included (apps/api/src/plugins/dev-clock.ts). The app then reads
// "now" from the same moved clock: premium shows as ended when the server says it ended, and
// an access token the server sees expired is renewed before it is sent. Without the cookie (in
// production, always) nothing here changes anything.
const COOKIE = /(?:^|;\s*)kegel_dev_clock_ms=(\d+)/;

const RealDate = Date;
let offsetMs = 0;

/** The global Date while the clock is moved: real dates, with "now" shifted (as on the server). */
function ShiftedDate(this: unknown, ...args: unknown[]): unknown {
  if (!new.target) return new RealDate(RealDate.now() + offsetMs).toString();
  const now = args.length === 0 ? [RealDate.now() + offsetMs] : args;
  return Reflect.construct(RealDate, now, new.target as typeof RealDate);
}
ShiftedDate.prototype = RealDate.prototype;
ShiftedDate.now = (): number => RealDate.now() + offsetMs;
ShiftedDate.parse = RealDate.parse;
ShiftedDate.UTC = RealDate.UTC;

/**
 * The server's own machine, as the address bar names it: the only place the clock can be moved
 * (/dev/clock answers loopback callers under a loopback name only). Anywhere else a cookie of
 * that name was planted (a neighbouring subdomain can set one for the whole domain) and is
 * ignored: it could only upset the visitor's own page, but it should not even do that.
 */
const THIS_MACHINE = /^(localhost|[^.]+(\.[^.]+)*\.localhost|127(\.\d{1,3}){3}|\[::1\])$/;

/**
 * Reads the cookie and moves this page's clock to match; cheap enough for every answer. Only on
 * the server's own machine: elsewhere (production) `document.cookie`, a synchronous call into
 * the browser made on every answer, is not even read.
 */
export function followServerClock(
  cookie?: string,
  hostname: string = typeof location === 'undefined' ? '' : location.hostname,
): void {
  const match = THIS_MACHINE.test(hostname)
    ? COOKIE.exec(cookie ?? (typeof document === 'undefined' ? '' : document.cookie))
    : null;
  const next = match ? Number(match[1]) : 0;
  if (next === offsetMs) return;
  offsetMs = next;
  globalThis.Date = (next === 0 ? RealDate : ShiftedDate) as DateConstructor;
}
