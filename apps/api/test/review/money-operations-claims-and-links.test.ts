// Adversarial review of the calls that move money or mail without the member's usual proof:
// claiming an App Store purchase by order id (races, an order half another's, the per-member
// budget), the one-click unsubscribe link (forged, other-purpose and oversized tokens and bodies),
// form bodies elsewhere, and preferences with fields nobody may set. Each test fails if its attack
// works.
import type { AppStoreSandbox } from '@kegel/sandbox/app-store-sandbox';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { createOrderClaims } from '../../src/modules/app-store/order-claims';
import { signUnsubscribeToken } from '../../src/modules/premium-reminders/unsubscribe-token';
import { deriveKey } from '../../src/security/keys';
import { getProfile } from '../support/accounts';
import { makeMember, MEMBER_PASSWORD } from '../support/desk-actions';
import { startTestServer, TEST_TOKEN_SECRET, type TestServer } from '../support/test-app';
import { testDatabaseKinds } from '../support/test-databases';

describe.each(testDatabaseKinds)('review: money operations under attack on $name', (kind) => {
  let server: TestServer;
  let sandbox: AppStoreSandbox;
  beforeAll(async () => {
    server = await startTestServer(kind);
    const running = server.app.appStoreSandbox;
    if (!running) throw new Error('expected the App Store sandbox');
    sandbox = running;
  });
  afterAll(() => server.close());

  function call(
    method: 'GET' | 'PUT' | 'POST',
    url: string,
    accessToken?: string,
    payload?: string | object,
    headers: Record<string, string> = {},
  ) {
    return server.app.inject({
      method,
      url,
      headers: { ...(accessToken ? { authorization: `Bearer ${accessToken}` } : {}), ...headers },
      ...(payload === undefined ? {} : { payload }),
    });
  }

  const claim = (accessToken: string, orderId: string) =>
    call('POST', '/api/payments/apple/claim', accessToken, { orderId });

  async function premiumEnd(accessToken: string): Promise<string | null> {
    return (await getProfile(server.app, accessToken)).json<{
      subscriptionEndDate: string | null;
    }>().subscriptionEndDate;
  }

  async function bindingOf(originalTransactionId: string) {
    const row = await server.app.database.db
      .selectFrom('appStoreSubscriptions')
      .select('userId')
      .where('originalTransactionId', '=', originalTransactionId)
      .executeTakeFirst();
    return row?.userId ?? null;
  }

  async function preferencesOf(accessToken: string) {
    return (await call('GET', '/api/users/preferences', accessToken)).json<{
      appleConsumptionConsent: boolean;
      appleConsumptionConsentChangedAt: string | null;
      expiryReminders: boolean;
    }>();
  }

  it('gives an unbound order to exactly one of two members claiming it at once', async () => {
    for (let round = 0; round < 3; round += 1) {
      const [first, second] = [
        await makeMember(server.app, 'race-a'),
        await makeMember(server.app, 'race-b'),
      ];
      const { originalTransactionId, orderId } = await sandbox.subscribe({
        productId: 'premium.month',
        deliver: false,
      });
      const answers = await Promise.all([
        claim(first.accessToken, orderId),
        claim(second.accessToken, orderId),
      ]);
      expect(answers.map((answer) => answer.statusCode).sort()).toEqual([200, 409]);
      const winner = answers[0].statusCode === 200 ? first : second;
      const loser = winner === first ? second : first;
      expect(await bindingOf(originalTransactionId)).toBe(winner.userId);
      expect(await premiumEnd(winner.accessToken)).not.toBeNull();
      expect(await premiumEnd(loser.accessToken)).toBeNull();
    }
  });

  it('changes nothing for an order of two subscriptions of which one is another member’s', async () => {
    const owner = await makeMember(server.app, 'half-owner');
    const thief = await makeMember(server.app, 'half-thief');
    const owned = await sandbox.subscribe({ productId: 'premium.month', deliver: false });
    expect((await claim(owner.accessToken, owned.orderId)).statusCode).toBe(200);
    const unbound = await sandbox.subscribe({ productId: 'premium.year', deliver: false });
    const api = server.app.appStoreServerApi;
    if (!api) throw new Error('expected the App Store Server API');
    // One order holding both (Apple's orders may hold several purchases): Apple's real answers
    // for the two, as one lookup would give them, in either order.
    for (const pair of [
      [owned.orderId, unbound.orderId],
      [unbound.orderId, owned.orderId],
    ]) {
      const claims = createOrderClaims({
        db: server.app.database.db,
        lookUpOrder: async () =>
          (await Promise.all(pair.map((orderId) => api.lookUpOrder(orderId)))).flat(),
        rateLimiter: server.app.rateLimiter,
        claimsPerMember: { name: 'review-order-claims', limit: 100, windowSeconds: 3600 },
        supportEmail: 'help@kegel.test',
      });
      await expect(claims.claimOrder(thief.userId, 'ORDERBOTH1')).rejects.toMatchObject({
        statusCode: 409,
      });
    }
    expect(await bindingOf(owned.originalTransactionId)).toBe(owner.userId);
    expect(await bindingOf(unbound.originalTransactionId)).toBeNull();
    expect(await premiumEnd(thief.accessToken)).toBeNull();
    const purchases = await server.app.database.db
      .selectFrom('purchases')
      .select('id')
      .where('userId', '=', thief.userId)
      .execute();
    expect(purchases).toEqual([]);
  });

  it('counts every try against the member’s 10 an hour, whatever the case, spaces or concurrency', async () => {
    const guesser = await makeMember(server.app, 'guesser');
    const variants = Array.from({ length: 16 }, (_, index) =>
      index % 2 === 0
        ? ` mzz${String(index).padStart(7, '0')} `
        : `MZZ${String(index).padStart(7, '0')}`,
    );
    const answers = await Promise.all(
      variants.map((orderId) => claim(guesser.accessToken, orderId)),
    );
    const statuses = answers.map((answer) => answer.statusCode);
    expect(statuses.filter((status) => status !== 429)).toHaveLength(10);
    expect(statuses.filter((status) => status === 429)).toHaveLength(6);
    // A real order is refused as well once the budget is spent: guessing cannot go on.
    const real = await sandbox.subscribe({ productId: 'premium.month', deliver: false });
    expect((await claim(guesser.accessToken, real.orderId)).statusCode).toBe(429);
    expect(await bindingOf(real.originalTransactionId)).toBeNull();
  });

  it('refuses unsubscribe tokens that are forged, of another purpose, altered or oversized', async () => {
    const target = await makeMember(server.app, 'unsub-target');
    const key = deriveKey(TEST_TOKEN_SECRET, 'unsubscribe-link');
    const genuine = signUnsubscribeToken(key, target.userId, 'expiry-reminders');
    const [id, list, signature] = genuine.split('.') as [string, string, string];
    const otherKey = deriveKey(TEST_TOKEN_SECRET, 'access-token');
    const refused: string[] = [];
    for (const token of [
      // Signed with a key of another purpose, or with the secret itself.
      signUnsubscribeToken(otherKey, target.userId, 'expiry-reminders'),
      signUnsubscribeToken(Buffer.from(TEST_TOKEN_SECRET), target.userId, 'expiry-reminders'),
      // The genuine one, changed.
      `${id.toUpperCase()}.${list}.${signature}`,
      `${id}.marketing.${signature}`,
      `${id}.${list}.${signature}.extra`,
      `${id}.${list}.${signature}=`,
      `${id}.${list}.${signature.slice(0, -1)}`,
      `${id}.${list}.`,
      `${id}.${list}`,
      `${id}..${signature}`,
      `.${list}.${signature}`,
      `${id}.${list}.${Buffer.from(signature, 'base64url').toString('base64')}`,
      `${id}.${list}.${'A'.repeat(signature.length)}`,
      `${id}.${list}.${signature}${'A'.repeat(200)}`,
    ]) {
      const response = await call(
        'POST',
        `/api/users/unsubscribe?token=${encodeURIComponent(token)}`,
        undefined,
        'List-Unsubscribe=One-Click',
        { 'content-type': 'application/x-www-form-urlencoded' },
      );
      if (response.statusCode !== 400) refused.push(`${token}: ${response.statusCode}`);
    }
    expect(refused).toEqual([]);
    // A token in the body instead of the link, a body too large for a one-click POST.
    const inBody = await call(
      'POST',
      '/api/users/unsubscribe',
      undefined,
      `token=${encodeURIComponent(genuine)}`,
      { 'content-type': 'application/x-www-form-urlencoded' },
    );
    expect(inBody.statusCode).toBe(400);
    const huge = await call(
      'POST',
      `/api/users/unsubscribe?token=${encodeURIComponent(genuine)}`,
      undefined,
      `List-Unsubscribe=One-Click&pad=${'x'.repeat(100_000)}`,
      { 'content-type': 'application/x-www-form-urlencoded' },
    );
    expect(huge.statusCode).toBe(413);
    expect((await preferencesOf(target.accessToken)).expiryReminders).toBe(true);
  });

  it('answers 404 for the link of a deleted account, and the link turns off only its own member', async () => {
    const gone = await makeMember(server.app, 'unsub-gone');
    const neighbour = await makeMember(server.app, 'unsub-neighbour');
    const key = deriveKey(TEST_TOKEN_SECRET, 'unsubscribe-link');
    const goneToken = signUnsubscribeToken(key, gone.userId, 'expiry-reminders');
    const deleted = await call('POST', '/api/users/delete', gone.accessToken, {
      password: MEMBER_PASSWORD,
    });
    expect(deleted.statusCode, deleted.body).toBeLessThan(300);
    const answer = await call(
      'POST',
      `/api/users/unsubscribe?token=${encodeURIComponent(goneToken)}`,
    );
    expect(answer.statusCode).toBe(404);
    expect((await preferencesOf(neighbour.accessToken)).expiryReminders).toBe(true);
  });

  it('refuses form-encoded bodies on every call but the unsubscribe link (415), and changes nothing', async () => {
    const victim = await makeMember(server.app, 'form-victim');
    const form = { 'content-type': 'application/x-www-form-urlencoded' };
    const attempts: [method: 'PUT' | 'POST', url: string, body: string][] = [
      ['PUT', '/api/users/preferences', 'expiryReminders=false&appleConsumptionConsent=true'],
      ['POST', '/api/payments/apple/claim', 'orderId=MZZ0000001'],
      ['POST', '/api/users/delete', `password=${MEMBER_PASSWORD}`],
      [
        'POST',
        '/api/auth/local/login/email',
        `email=${encodeURIComponent(victim.email)}&password=x`,
      ],
    ];
    for (const [method, url, body] of attempts) {
      const response = await call(method, url, victim.accessToken, body, form);
      expect(response.statusCode, `${method} ${url}: ${response.body}`).toBe(415);
    }
    expect(await preferencesOf(victim.accessToken)).toMatchObject({
      appleConsumptionConsent: false,
      expiryReminders: true,
    });
  });

  it('takes no consent time, member id or other field from the body of PUT /api/users/preferences', async () => {
    const own = await makeMember(server.app, 'prefs-own');
    const other = await makeMember(server.app, 'prefs-other');
    const before = Date.now();
    const saved = await call('PUT', '/api/users/preferences', own.accessToken, {
      appleConsumptionConsent: true,
      appleConsumptionConsentChangedAt: '2001-01-01T00:00:00.000Z',
      userId: other.userId,
      id: other.userId,
      email: other.email,
    });
    expect(saved.statusCode, saved.body).toBe(200);
    const mine = await preferencesOf(own.accessToken);
    expect(mine.appleConsumptionConsent).toBe(true);
    expect(Date.parse(mine.appleConsumptionConsentChangedAt ?? '')).toBeGreaterThanOrEqual(
      before - 1000,
    );
    expect(await preferencesOf(other.accessToken)).toMatchObject({
      appleConsumptionConsent: false,
      appleConsumptionConsentChangedAt: null,
    });
    for (const body of [
      { appleConsumptionConsent: 'true' },
      { appleConsumptionConsent: 1 },
      { expiryReminders: null },
      { appleConsumptionConsentChangedAt: '2001-01-01T00:00:00.000Z' },
      [true],
    ]) {
      const refused = await call('PUT', '/api/users/preferences', other.accessToken, body);
      expect(refused.statusCode, JSON.stringify(body)).toBe(400);
    }
    expect((await preferencesOf(other.accessToken)).appleConsumptionConsent).toBe(false);
  });
});
