import { Writable } from 'node:stream';

import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { register } from './support/accounts';
import { startTestServer, type TestServer, uniqueEmail } from './support/test-app';
import { testDatabaseKinds } from './support/test-databases';

// Whose address a request counts against, behind a load balancer. The load balancer appends the
// address it saw to X-Forwarded-For; everything to the left of that came from the client and can
// be anything it likes. The limits here are the wrong-password ones (five free per account and
// client address): what a client would escape if it could choose its own address.
const pglite = testDatabaseKinds[0]!;

/** A sign-in that reached the server through proxies: the socket is the last proxy's. */
function signInThrough(
  app: FastifyInstance,
  from: { socket: string; forwardedFor: string },
  email: string,
  password: string,
) {
  return app.inject({
    method: 'POST',
    url: '/api/auth/local/login/email',
    remoteAddress: from.socket,
    headers: { 'x-forwarded-for': from.forwardedFor },
    payload: { email, password },
  });
}

const BALANCER = '10.0.0.2';

describe('TRUST_PROXY=1 (one load balancer in front)', () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer(pglite, { env: { TRUST_PROXY: '1' } });
  });
  afterAll(() => server.close());

  it('counts a client rotating the left-most X-Forwarded-For as the one client it is', async () => {
    const email = uniqueEmail('rotating');
    await register(server.app, email, 'correct horse');
    const client = '198.51.100.9';
    const statuses: number[] = [];
    for (let guess = 0; guess < 8; guess += 1) {
      const response = await signInThrough(
        server.app,
        { socket: BALANCER, forwardedFor: `203.0.113.${guess}, ${client}` },
        email,
        'wrong horse',
      );
      statuses.push(response.statusCode);
    }
    expect(statuses).toEqual([401, 401, 401, 401, 401, 429, 429, 429]);
    const withTheRightPassword = await signInThrough(
      server.app,
      { socket: BALANCER, forwardedFor: `203.0.113.99, ${client}` },
      email,
      'correct horse',
    );
    expect(withTheRightPassword.statusCode).toBe(429);
  });

  it('counts two clients behind the balancer apart, not as the balancer', async () => {
    const email = uniqueEmail('two-clients');
    await register(server.app, email, 'correct horse');
    for (let guess = 0; guess < 6; guess += 1) {
      await signInThrough(
        server.app,
        { socket: BALANCER, forwardedFor: '198.51.100.20' },
        email,
        'wrong horse',
      );
    }
    const owner = await signInThrough(
      server.app,
      { socket: BALANCER, forwardedFor: '192.0.2.20' },
      email,
      'correct horse',
    );
    expect(owner.statusCode).toBe(200);
  });
});

describe('TRUST_PROXY as a list of proxy networks', () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer(pglite, { env: { TRUST_PROXY: '10.0.0.0/8' } });
  });
  afterAll(() => server.close());

  it('skips every listed proxy (a CDN, then the balancer) to the client in front of them', async () => {
    const email = uniqueEmail('through-cdn');
    await register(server.app, email, 'correct horse');
    const statuses: number[] = [];
    for (let guess = 0; guess < 6; guess += 1) {
      const response = await signInThrough(
        server.app,
        { socket: BALANCER, forwardedFor: `203.0.113.${guess}, 198.51.100.30, 10.1.2.3` },
        email,
        'wrong horse',
      );
      statuses.push(response.statusCode);
    }
    expect(statuses).toEqual([401, 401, 401, 401, 401, 429]);
    const elsewhere = await signInThrough(
      server.app,
      { socket: BALANCER, forwardedFor: '192.0.2.30, 10.1.2.3' },
      email,
      'correct horse',
    );
    expect(elsewhere.statusCode).toBe(200);
  });

  it('ignores X-Forwarded-For from a client that is not one of the proxies', async () => {
    const email = uniqueEmail('direct');
    await register(server.app, email, 'correct horse');
    const statuses: number[] = [];
    for (let guess = 0; guess < 6; guess += 1) {
      const response = await signInThrough(
        server.app,
        { socket: '203.0.113.77', forwardedFor: `198.51.100.${guess}` },
        email,
        'wrong horse',
      );
      statuses.push(response.statusCode);
    }
    expect(statuses).toEqual([401, 401, 401, 401, 401, 429]);
  });
});

describe('TRUST_PROXY=true outside production', () => {
  it('is taken, with a warning at start that any client can then choose its address', async () => {
    const lines: string[] = [];
    const stream = new Writable({
      write(chunk: Buffer, _encoding, done) {
        lines.push(...chunk.toString('utf8').split('\n').filter(Boolean));
        done();
      },
    });
    const server = await startTestServer(pglite, {
      env: { TRUST_PROXY: 'true' },
      logger: { level: 'warn', stream },
    });
    try {
      const warnings = lines
        .map((line) => JSON.parse(line) as { level: number; msg: string })
        .filter((entry) => entry.level === 40);
      expect(warnings.map((entry) => entry.msg)).toContainEqual(
        expect.stringMatching(/^TRUST_PROXY=true trusts every X-Forwarded-For hop/),
      );
    } finally {
      await server.close();
    }
  });
});
