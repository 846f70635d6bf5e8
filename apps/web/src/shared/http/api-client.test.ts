// @vitest-environment node
// No page is rendered here: Node alone, without the DOM that the web project sets up.
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';

import {
  ApiError,
  buildUrl,
  createApiClient,
  NETWORK_ERROR_MESSAGE,
  RENEWAL_FAILED_MESSAGE,
} from './api-client';
import { ACCESS_TOKEN_KEY, createTokenStore, REFRESH_TOKEN_KEY } from './token-store';

/** localStorage's interface over a Map. */
class MemoryStorage implements Storage {
  private readonly items = new Map<string, string>();
  get length(): number {
    return this.items.size;
  }
  clear(): void {
    this.items.clear();
  }
  getItem(key: string): string | null {
    return this.items.get(key) ?? null;
  }
  key(index: number): string | null {
    return [...this.items.keys()][index] ?? null;
  }
  removeItem(key: string): void {
    this.items.delete(key);
  }
  setItem(key: string, value: string): void {
    this.items.set(key, value);
  }
}

const NOW = Date.UTC(2026, 10, 23, 12, 0, 0);
function jwt(expSecondsFromNow: number, label = 'x'): string {
  const part = (value: object): string =>
    btoa(JSON.stringify(value)).replace(/\+/g, '-').replace(/\//g, '_').replace(/=+$/, '');
  return `${part({ alg: 'HS256' })}.${part({ exp: Math.floor(NOW / 1000) + expSecondsFromNow, label })}.sig`;
}

interface Call {
  url: string;
  method: string;
  headers: Record<string, string>;
  body: unknown;
}

function setup(
  options: { access: string; refresh: string } | null,
  respond: (call: Call) => Response | Promise<Response>,
) {
  const storage = new MemoryStorage();
  const tokens = createTokenStore(storage);
  if (options) tokens.write({ accessToken: options.access, refreshToken: options.refresh });
  const calls: Call[] = [];
  let unauthorized = 0;
  const renewalFailures: string[] = [];
  const client = createApiClient({
    baseUrl: '/api',
    tokens,
    now: () => NOW,
    onUnauthorized: () => {
      unauthorized += 1;
    },
    onRenewalFailed: (message) => {
      renewalFailures.push(message);
    },
    fetch: async (input, init) => {
      const call: Call = {
        url: input as string,
        method: init?.method ?? 'GET',
        headers: (init?.headers ?? {}) as Record<string, string>,
        body: typeof init?.body === 'string' ? JSON.parse(init.body) : undefined,
      };
      calls.push(call);
      return respond(call);
    },
  });
  return { client, tokens, storage, calls, renewalFailures, unauthorizedCount: () => unauthorized };
}

const json = (status: number, body: unknown, headers: Record<string, string> = {}): Response =>
  new Response(JSON.stringify(body), {
    status,
    headers: { 'content-type': 'application/json', ...headers },
  });

describe('api client', () => {
  it('sends the access token as a bearer header', async () => {
    const access = jwt(600);
    const { client, calls } = setup({ access, refresh: jwt(86400) }, () => json(200, { ok: true }));
    await client.call('readProfile');
    expect(calls).toHaveLength(1);
    expect(calls[0]!.url).toBe('/api/users/profile');
    expect(calls[0]!.headers.authorization).toBe(`Bearer ${access}`);
  });

  it('renews an expired access token first, once for several requests at the same time', async () => {
    const refresh = jwt(86400, 'old');
    const renewed = { accessToken: jwt(900, 'new'), refreshToken: jwt(86400, 'newer') };
    let refreshes = 0;
    const { client, calls, storage } = setup({ access: jwt(-5), refresh }, async (call) => {
      if (call.url === '/api/auth/refresh') {
        refreshes += 1;
        await new Promise((resolve) => setTimeout(resolve, 20));
        return json(200, renewed);
      }
      return json(200, { ok: true });
    });

    await Promise.all([
      client.call('readProfile'),
      client.call('listPlans'),
      client.call('listPurchases'),
    ]);
    expect(refreshes).toBe(1);
    const refreshCall = calls.find((call) => call.url === '/api/auth/refresh')!;
    expect(refreshCall.body).toEqual({ refreshToken: refresh });
    expect(refreshCall.headers.authorization).toBe(`Bearer ${refresh}`);
    for (const call of calls.filter((call) => call.url !== '/api/auth/refresh')) {
      expect(call.headers.authorization).toBe(`Bearer ${renewed.accessToken}`);
    }
    expect(storage.getItem(ACCESS_TOKEN_KEY)).toBe(renewed.accessToken);
    expect(storage.getItem(REFRESH_TOKEN_KEY)).toBe(renewed.refreshToken);
  });

  it('never renews before a call to an /auth path', async () => {
    const { client, calls } = setup({ access: jwt(-5), refresh: jwt(86400) }, () => json(200, {}));
    await client.call('changePassword', { body: { oldPassword: 'a', newPassword: 'b' } });
    expect(calls.map((call) => call.url)).toEqual(['/api/auth/change-password']);
  });

  it('removes both tokens when the server refuses the renewal (401)', async () => {
    const { client, tokens } = setup({ access: jwt(-5), refresh: jwt(86400) }, (call) =>
      call.url === '/api/auth/refresh'
        ? json(401, { statusCode: 401, error: 'Unauthorized', message: 'ended' })
        : json(401, {}),
    );
    await expect(client.call('readProfile')).rejects.toBeInstanceOf(ApiError);
    expect(tokens.read()).toBeNull();
  });

  it('does not try to renew with an expired refresh token: both are removed', async () => {
    const { client, calls, tokens } = setup({ access: jwt(-5), refresh: jwt(-1) }, () =>
      json(401, {}),
    );
    await expect(client.call('readProfile')).rejects.toThrow();
    expect(calls.map((call) => call.url)).toEqual(['/api/users/profile']);
    expect(calls[0]!.headers.authorization).toBeUndefined();
    expect(tokens.read()).toBeNull();
  });

  it('reports a 401 to the app, which decides where to go', async () => {
    const { client, unauthorizedCount } = setup(null, () =>
      json(401, { statusCode: 401, error: 'Unauthorized', message: 'Please sign in' }),
    );
    await expect(client.call('readProfile')).rejects.toMatchObject({
      statusCode: 401,
      message: 'Please sign in',
    });
    expect(unauthorizedCount()).toBe(1);
  });

  it("joins the server's array of messages with newlines", async () => {
    const { client, unauthorizedCount } = setup(null, () =>
      json(400, {
        statusCode: 400,
        error: 'Bad Request',
        message: ['Invalid email', 'Password is too short'],
      }),
    );
    await expect(
      client.call('register', { body: { email: '', password: '' } }),
    ).rejects.toMatchObject({
      statusCode: 400,
      message: 'Invalid email\nPassword is too short',
    });
    expect(unauthorizedCount()).toBe(0);
  });

  it('says when the server cannot be reached, and when it answers something unreadable', async () => {
    const offline = setup(null, () => Promise.reject(new TypeError('Failed to fetch')));
    await expect(offline.client.call('readProfile')).rejects.toMatchObject({
      statusCode: 0,
      message: NETWORK_ERROR_MESSAGE,
    });
    const proxy = setup(null, () => new Response('<html>Bad gateway</html>', { status: 502 }));
    await expect(proxy.client.call('readProfile')).rejects.toMatchObject({
      statusCode: 502,
      message: 'Something went wrong. Please try again.',
    });
  });

  it('puts GET parameters in the query string, repeating the key for arrays', () => {
    expect(
      buildUrl('/api', '/payments/stripe/plans', {
        id: ['a', 'b'],
        currency: 'usd',
        skip: undefined,
      }),
    ).toBe('/api/payments/stripe/plans?id=a&id=b&currency=usd');
  });

  it('fills in path parameters, encoded, and sends the body as JSON with the method of the call', async () => {
    const { client, calls } = setup(null, () =>
      json(200, { id: 'cs_1', durationDays: 7, beginsAt: '', providerType: 'Stripe', price: 1 }),
    );
    const session = await client.call('describeCheckout', { params: { session: 'cs 1/2' } });
    expect(session.durationDays).toBe(7);
    expect(calls[0]).toMatchObject({
      url: '/api/payments/stripe/session/cs%201%2F2',
      method: 'GET',
    });
    await client.call('startCheckout', { body: { planId: '1-week', email: 'a@b.co' } });
    expect(calls[1]).toMatchObject({
      url: '/api/payments/stripe/new',
      method: 'POST',
      body: { planId: '1-week', email: 'a@b.co' },
    });
    expect(calls[1]!.headers['content-type']).toBe('application/json');
  });
});

describe('a renewal that meets a network error, a 429 or a 5xx', () => {
  // "A network error, a 429 or a 5xx is not a failed renewal: the tokens stay and the renewal is
  // retried" (README, Product rules). The waits run on fake timers.
  beforeEach(() => {
    vi.useFakeTimers();
  });
  afterEach(() => {
    vi.useRealTimers();
  });

  const stale = { access: jwt(-5, 'stale'), refresh: jwt(86400, 'live') };
  const renewed = { accessToken: jwt(900, 'renewed'), refreshToken: jwt(86400, 'successor') };
  const busy = (retryAfter?: string) =>
    json(
      503,
      { statusCode: 503, error: 'Service Unavailable', message: 'busy' },
      retryAfter === undefined ? {} : { 'retry-after': retryAfter },
    );
  const tooMany = (retryAfter: string) =>
    json(
      429,
      { statusCode: 429, error: 'Too Many Requests', message: 'Too many requests.' },
      { 'retry-after': retryAfter },
    );
  /** A refresh endpoint answering from a script, then success; everything else is fine. */
  function scripted(answers: Array<() => Response | Promise<Response>>) {
    let refreshes = 0;
    const view = setup(stale, (call) => {
      if (call.url !== '/api/auth/refresh') return json(200, { ok: true });
      refreshes += 1;
      const answer = answers.shift();
      return answer ? answer() : json(200, renewed);
    });
    return { ...view, refreshes: () => refreshes };
  }
  /** Settles without an unhandled rejection while the test moves the clock. */
  const outcomeOf = (promise: Promise<unknown>) =>
    promise.then(
      () => 'done' as const,
      (error: unknown) => error,
    );

  it('keeps the tokens and tries again after the Retry-After of a 503, without a word', async () => {
    const view = scripted([() => busy('3')]);
    const outcome = outcomeOf(view.client.call('readProfile'));

    await vi.advanceTimersByTimeAsync(2_900);
    expect(view.refreshes()).toBe(1);
    expect(view.tokens.read()).toEqual({ accessToken: stale.access, refreshToken: stale.refresh });
    await vi.advanceTimersByTimeAsync(200);
    expect(await outcome).toBe('done');
    expect(view.refreshes()).toBe(2);
    expect(view.tokens.read()).toEqual(renewed);
    expect(view.calls.at(-1)!.headers.authorization).toBe(`Bearer ${renewed.accessToken}`);
    expect(view.renewalFailures).toEqual([]);
    expect(view.unauthorizedCount()).toBe(0);
  });

  it('reads a Retry-After given as a date', async () => {
    const view = scripted([() => tooMany(new Date(NOW + 4_000).toUTCString())]);
    const outcome = outcomeOf(view.client.call('readProfile'));
    await vi.advanceTimersByTimeAsync(3_900);
    expect(view.refreshes()).toBe(1);
    await vi.advanceTimersByTimeAsync(200);
    expect(await outcome).toBe('done');
    expect(view.refreshes()).toBe(2);
  });

  it('backs off after network errors and 5xx without Retry-After (1 s, then 2 s)', async () => {
    const view = scripted([() => Promise.reject(new TypeError('Failed to fetch')), () => busy()]);
    const outcome = outcomeOf(view.client.call('readProfile'));
    await vi.advanceTimersByTimeAsync(900);
    expect(view.refreshes()).toBe(1);
    await vi.advanceTimersByTimeAsync(400);
    expect(view.refreshes()).toBe(2);
    await vi.advanceTimersByTimeAsync(1_500);
    expect(view.refreshes()).toBe(2);
    await vi.advanceTimersByTimeAsync(400);
    expect(await outcome).toBe('done');
    expect(view.refreshes()).toBe(3);
    expect(view.tokens.read()).toEqual(renewed);
  });

  it('gives up after three attempts: the requests fail with a clear message, the tokens stay, the app is told once', async () => {
    const view = scripted([() => tooMany('1'), () => tooMany('1'), () => tooMany('1')]);
    const outcomes = [
      outcomeOf(view.client.call('readProfile')),
      outcomeOf(view.client.call('listPurchases')),
    ];
    await vi.advanceTimersByTimeAsync(10_000);
    for (const outcome of await Promise.all(outcomes)) {
      expect(outcome).toBeInstanceOf(ApiError);
      expect(outcome).toMatchObject({ statusCode: 429, message: RENEWAL_FAILED_MESSAGE });
    }
    expect(view.refreshes()).toBe(3);
    expect(view.calls.map((call) => call.url)).toEqual(Array(3).fill('/api/auth/refresh'));
    expect(view.tokens.read()).toEqual({ accessToken: stale.access, refreshToken: stale.refresh });
    expect(view.renewalFailures).toEqual([RENEWAL_FAILED_MESSAGE]);
    expect(view.unauthorizedCount()).toBe(0);

    // The next request tries again, and the server is back.
    const later = outcomeOf(view.client.call('readProfile'));
    expect(await later).toBe('done');
    expect(view.tokens.read()).toEqual(renewed);
  });

  it('says the server cannot be reached when the network keeps failing', async () => {
    const offline = () => Promise.reject(new TypeError('Failed to fetch'));
    const view = scripted([offline, offline, offline]);
    const outcome = outcomeOf(view.client.call('readProfile'));
    await vi.advanceTimersByTimeAsync(10_000);
    expect(await outcome).toMatchObject({ statusCode: 0, message: NETWORK_ERROR_MESSAGE });
    expect(view.tokens.read()).toEqual({ accessToken: stale.access, refreshToken: stale.refresh });
    expect(view.renewalFailures).toEqual([NETWORK_ERROR_MESSAGE]);
  });

  it('does not wait longer than 10 s: a later Retry-After fails the request at once, tokens kept', async () => {
    const view = scripted([() => tooMany('60')]);
    const outcome = outcomeOf(view.client.call('readProfile'));
    await vi.advanceTimersByTimeAsync(0);
    expect(await outcome).toMatchObject({ statusCode: 429, message: RENEWAL_FAILED_MESSAGE });
    expect(view.refreshes()).toBe(1);
    expect(view.tokens.read()).toEqual({ accessToken: stale.access, refreshToken: stale.refresh });
  });

  it('never retries with a refresh token another tab has renewed meanwhile', async () => {
    const view = scripted([() => busy('5')]);
    const outcome = outcomeOf(view.client.call('readProfile'));
    await vi.advanceTimersByTimeAsync(1_000);
    // Another tab renewed the pair: presenting the old refresh token again would end the session.
    view.tokens.write(renewed);
    await vi.advanceTimersByTimeAsync(5_000);
    expect(await outcome).toBe('done');
    expect(view.refreshes()).toBe(1);
    expect(view.calls.at(-1)!.headers.authorization).toBe(`Bearer ${renewed.accessToken}`);
  });

  it('still removes both tokens on a 401, at once', async () => {
    const view = scripted([
      () => json(401, { statusCode: 401, error: 'Unauthorized', message: 'ended' }),
    ]);
    const outcome = outcomeOf(view.client.call('readProfile'));
    await vi.advanceTimersByTimeAsync(0);
    await outcome;
    expect(view.refreshes()).toBe(1);
    expect(view.tokens.read()).toBeNull();
  });
});
