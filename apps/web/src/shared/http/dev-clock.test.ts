import { afterEach, describe, expect, it, vi } from 'vitest';

import { followServerClock } from './dev-clock';

const DAY_MS = 24 * 60 * 60 * 1000;

describe('followServerClock', () => {
  afterEach(() => followServerClock('', 'localhost'));

  it("moves the page's now by the server's offset, with real dates, and back without the cookie", () => {
    const RealDate = Date;
    followServerClock('theme=dark; kegel_dev_clock_ms=172800000', 'localhost');
    expect(Date.now() - RealDate.now()).toBeGreaterThanOrEqual(2 * DAY_MS - 1000);
    expect(new Date().getTime() - RealDate.now()).toBeGreaterThanOrEqual(2 * DAY_MS - 1000);
    expect(new Date()).toBeInstanceOf(RealDate);
    expect(new Date('2030-01-02T00:00:00Z').toISOString()).toBe('2030-01-02T00:00:00.000Z');
    followServerClock('theme=dark', 'localhost');
    expect(Date).toBe(RealDate);
    expect(Math.abs(Date.now() - RealDate.now())).toBeLessThan(1000);
  });

  it('follows no cookie on a site that is not this machine: there nobody can move the clock', () => {
    // A production page (the server never sets the cookie there) with one planted by a
    // neighbouring subdomain (Domain=.example.com): the visitor's clock stays his own.
    const RealDate = Date;
    for (const hostname of [
      'kegelcoach.app',
      'app.example.com',
      '127.example.com',
      'localhost.evil',
    ]) {
      followServerClock('kegel_dev_clock_ms=172800000', hostname);
      expect(Date, hostname).toBe(RealDate);
    }
    for (const hostname of ['localhost', '127.0.0.1', '[::1]', 'web.localhost']) {
      followServerClock('kegel_dev_clock_ms=172800000', hostname);
      expect(Date.now() - RealDate.now(), hostname).toBeGreaterThan(DAY_MS);
      followServerClock('', hostname);
    }
  });

  it('does not even read the cookies on a site that is not this machine: a call into the browser on every answer', () => {
    const readCookies = vi.spyOn(Document.prototype, 'cookie', 'get');
    followServerClock(undefined, 'kegelcoach.app');
    expect(readCookies).not.toHaveBeenCalled();
    followServerClock(undefined, 'localhost');
    expect(readCookies).toHaveBeenCalledTimes(1);
    readCookies.mockRestore();
  });
});
