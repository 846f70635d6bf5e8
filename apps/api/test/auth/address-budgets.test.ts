import type { TokenPair } from '@kegel/contract';
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { postFrom, register } from '../support/accounts';
import { startTestServer, type TestServer, uniqueEmail } from '../support/test-app';
import { testDatabaseKinds } from '../support/test-databases';

// What one client address may do, when that address is a whole office or a carrier's NAT: the
// calls every signed-in person makes (token renewals, the sign-in page's providers and Apple
// nonce) must not run into a budget sized for an attacker, and the attacker's calls (wrong
// passwords for many accounts, registrations, reset requests) must.

function getFrom(app: FastifyInstance, remoteAddress: string, url: string) {
  return app.inject({ method: 'GET', url: `/api${url}`, remoteAddress });
}

let homes = 0;
/** Registers the account from an address of its own, as people sign up from home. */
async function registerAtHome(app: FastifyInstance, email: string): Promise<void> {
  homes += 1;
  const home = `192.0.${Math.floor(homes / 250)}.${(homes % 250) + 1}`;
  const response = await postFrom(app, home, '/auth/local/register/email', {
    email,
    password: 'correct horse',
  });
  expect(response.statusCode, response.body).toBe(201);
}

async function signInFrom(
  app: FastifyInstance,
  address: string,
  email: string,
  password: string,
): Promise<TokenPair> {
  const response = await postFrom(app, address, '/auth/local/login/email', { email, password });
  expect(response.statusCode, response.body).toBe(200);
  return response.json<TokenPair>();
}

describe.each(testDatabaseKinds)(
  'one address shared by many people, as shipped, on $name',
  (kind) => {
    let server: TestServer;
    beforeAll(async () => {
      server = await startTestServer(kind, { shippedLimits: true });
    });
    afterAll(() => server.close());

    it('lets everyone behind it renew their sessions and open the sign-in page', async () => {
      const nat = '198.51.100.80';
      const people: TokenPair[] = [];
      for (let person = 0; person < 10; person += 1) {
        const email = uniqueEmail('behind-nat');
        await registerAtHome(server.app, email);
        people.push(await signInFrom(server.app, nat, email, 'correct horse'));
      }
      // 200 renewals: what 10 people do in 50 hours, or 5,000 people in 36 seconds.
      for (let round = 0; round < 20; round += 1) {
        for (const [index, person] of people.entries()) {
          const renewed = await postFrom(server.app, nat, '/auth/refresh', {
            refreshToken: person.refreshToken,
          });
          expect(renewed.statusCode, renewed.body).toBe(200);
          people[index] = renewed.json<TokenPair>();
        }
      }
      for (let pageLoad = 0; pageLoad < 60; pageLoad += 1) {
        expect((await getFrom(server.app, nat, '/auth/oauth/providers')).statusCode).toBe(200);
        expect((await postFrom(server.app, nat, '/auth/oauth/apple/nonce', {})).statusCode).toBe(
          200,
        );
      }
    });

    it('stops one session renewing in a loop, and only that session', async () => {
      const address = '198.51.100.81';
      const looping = uniqueEmail('looping');
      const neighbour = uniqueEmail('neighbour');
      await registerAtHome(server.app, looping);
      await registerAtHome(server.app, neighbour);
      let pair = await signInFrom(server.app, address, looping, 'correct horse');
      const neighbours = await signInFrom(server.app, address, neighbour, 'correct horse');
      for (let renewal = 0; renewal < 30; renewal += 1) {
        const renewed = await postFrom(server.app, address, '/auth/refresh', {
          refreshToken: pair.refreshToken,
        });
        expect(renewed.statusCode, renewed.body).toBe(200);
        pair = renewed.json<TokenPair>();
      }
      const refused = await postFrom(server.app, address, '/auth/refresh', {
        refreshToken: pair.refreshToken,
      });
      expect(refused.statusCode).toBe(429);
      expect(Number(refused.headers['retry-after'])).toBeGreaterThan(0);
      expect(Number(refused.headers['retry-after'])).toBeLessThanOrEqual(60);
      const neighbourRenewed = await postFrom(server.app, address, '/auth/refresh', {
        refreshToken: neighbours.refreshToken,
      });
      expect(neighbourRenewed.statusCode).toBe(200);
    });
  },
);

describe.each(testDatabaseKinds)('failed attempts per address on $name', (kind) => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer(kind, { env: { AUTH_ATTEMPTS_PER_ADDRESS_PER_HOUR: '20' } });
  });
  afterAll(() => server.close());

  const attempt = (email: string, password: string, from: string) =>
    postFrom(server.app, from, '/auth/local/login/email', { email, password });

  it('answers credential stuffing (a wrong password for each of many accounts) with 429, and a right one with 200', async () => {
    const stuffer = '203.0.113.90';
    // Someone who signs in from that address too (a shared NAT).
    const regular = uniqueEmail('regular');
    await register(server.app, regular, 'correct horse');
    await signInFrom(server.app, stuffer, regular, 'correct horse');
    const victims = Array.from({ length: 4 }, () => uniqueEmail('victim'));
    for (const victim of victims) await register(server.app, victim, 'correct horse');

    // Each account sees one wrong password only: far below its own limits.
    const accounts = [...victims, ...Array.from({ length: 16 }, () => uniqueEmail('listed'))];
    for (const account of accounts) {
      expect((await attempt(account, 'leaked password', stuffer)).statusCode).toBe(401);
    }
    const refused = await attempt(uniqueEmail('listed'), 'leaked password', stuffer);
    expect(refused.statusCode).toBe(429);
    expect(refused.json()).toMatchObject({
      message: 'Too many failed sign-in attempts. Please try again later.',
    });
    expect(Number(refused.headers['retry-after'])).toBeGreaterThan(0);
    expect(Number(refused.headers['retry-after'])).toBeLessThanOrEqual(60 * 60);
    // A wrong password stays slowed; the right password of an account that never signed in
    // from there is not: people behind that address are not refused for a stranger's guesses.
    expect((await attempt(victims[0]!, 'wrong password', stuffer)).statusCode).toBe(429);
    expect((await attempt(victims[0]!, 'correct horse', stuffer)).statusCode).toBe(200);

    // The regular's own network: he still gets in. Other addresses are not concerned.
    expect((await attempt(regular, 'correct horse', stuffer)).statusCode).toBe(200);
    expect((await attempt(victims[1]!, 'correct horse', '192.0.2.90')).statusCode).toBe(200);
    expect((await attempt(uniqueEmail('elsewhere'), 'wrong', '192.0.2.90')).statusCode).toBe(401);
  });

  it("never lets a stranger's wrong passwords refuse the right password, registration or reset mail of others behind the address", async () => {
    const nat = '203.0.113.92';
    const member = uniqueEmail('behind-nat-member');
    await registerAtHome(server.app, member);
    for (let guess = 0; guess < 25; guess += 1) {
      await attempt(uniqueEmail('stranger-guess'), 'leaked password', nat);
    }
    expect((await attempt(uniqueEmail('stranger-guess'), 'leaked password', nat)).statusCode).toBe(
      429,
    );

    expect((await attempt(member, 'correct horse', nat)).statusCode).toBe(200);
    const neighbour = uniqueEmail('behind-nat-new');
    const created = await postFrom(server.app, nat, '/auth/local/register/email', {
      email: neighbour,
      password: 'correct horse',
    });
    expect(created.statusCode, created.body).toBe(201);
    const reset = await postFrom(server.app, nat, '/auth/reset-password', { email: member });
    expect(reset.statusCode, reset.body).toBe(200);
    await server.inbox.waitFor(
      (message) => message.to.includes(member) && message.subject.includes('Reset'),
    );
  });

  it('counts registrations and reset requests in a budget of their own', async () => {
    const address = '203.0.113.91';
    for (let request = 0; request < 10; request += 1) {
      const reset = await postFrom(server.app, address, '/auth/reset-password', {
        email: uniqueEmail('reset'),
      });
      expect(reset.statusCode).toBe(200);
      const created = await postFrom(server.app, address, '/auth/local/register/email', {
        email: uniqueEmail('new'),
        password: 'correct horse',
      });
      expect(created.statusCode).toBe(201);
    }
    const reset = await postFrom(server.app, address, '/auth/reset-password', {
      email: uniqueEmail('reset'),
    });
    expect(reset.statusCode).toBe(429);
    expect(Number(reset.headers['retry-after'])).toBeGreaterThan(0);
    const created = await postFrom(server.app, address, '/auth/local/register/email', {
      email: uniqueEmail('new'),
      password: 'correct horse',
    });
    expect(created.statusCode).toBe(429);
    expect(created.json()).toMatchObject({
      message: 'Too many attempts from your network. Please try again later.',
    });
    // Renewing a session is not an attempt.
    const email = uniqueEmail('still-renews');
    await register(server.app, email, 'correct horse');
    const pair = await signInFrom(server.app, '192.0.2.91', email, 'correct horse');
    const renewed = await postFrom(server.app, address, '/auth/refresh', {
      refreshToken: pair.refreshToken,
    });
    expect(renewed.statusCode).toBe(200);
  });
});

describe('the sign-in page calls per address', () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer(testDatabaseKinds[0]!, {
      env: { SIGN_IN_PAGE_REQUESTS_PER_MINUTE: '6' },
    });
  });
  afterAll(() => server.close());

  it('have a budget of their own, which renewals and sign-ins do not share', async () => {
    const address = '198.51.100.95';
    const email = uniqueEmail('page');
    await register(server.app, email, 'correct horse');
    for (let load = 0; load < 3; load += 1) {
      expect((await getFrom(server.app, address, '/auth/oauth/providers')).statusCode).toBe(200);
      expect((await postFrom(server.app, address, '/auth/oauth/apple/nonce', {})).statusCode).toBe(
        200,
      );
    }
    const refused = await getFrom(server.app, address, '/auth/oauth/providers');
    expect(refused.statusCode).toBe(429);
    expect(Number(refused.headers['retry-after'])).toBeGreaterThan(0);
    expect((await postFrom(server.app, address, '/auth/oauth/apple/nonce', {})).statusCode).toBe(
      429,
    );
    const pair = await signInFrom(server.app, address, email, 'correct horse');
    const renewed = await postFrom(server.app, address, '/auth/refresh', {
      refreshToken: pair.refreshToken,
    });
    expect(renewed.statusCode).toBe(200);
  });
});
