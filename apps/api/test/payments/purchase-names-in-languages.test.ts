// The Purchase History's names in the member's page's language (issue 29): the database keeps them
// in English ("1 Month", "Granted by support: 7 days, service outage"); Spanish and German word
// the same plan or grant, the grant's reason kept as typed, and English stays byte for byte.
import type { PurchasesResponse } from '@kegel/contract';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { purchaseNameIn } from '../../src/modules/premium';
import { deskCall, makeMember, type TestMember } from '../support/desk-actions';
import { makeOperator } from '../support/operators';
import { checkoutEvent, deliverStripeEvent } from '../support/stripe-events';
import { startTestServer, type TestServer } from '../support/test-app';
import { testDatabaseKinds } from '../support/test-databases';

describe.each(testDatabaseKinds)("purchase names in the member's language on $name", (kind) => {
  let server: TestServer;
  let member: TestMember;
  beforeAll(async () => {
    server = await startTestServer(kind);
    member = await makeMember(server.app, 'names');
    for (const planId of ['1-month', '1-year']) {
      const delivered = await deliverStripeEvent(
        server.app,
        checkoutEvent({ email: member.email, planId }),
      );
      expect(delivered.statusCode, delivered.body).toBe(200);
    }
    const support = await makeOperator(server.app, 'support');
    const granted = await deskCall(
      server.app,
      'POST',
      `/ops/members/${member.userId}/grants`,
      support.accessToken,
      { days: 7, reason: 'service outage \\x41', idempotencyKey: `names-${Date.now()}` },
    );
    expect(granted.statusCode, granted.body).toBe(201);
  });
  afterAll(() => server.close());

  async function namesIn(acceptLanguage: string) {
    const response = await server.app.inject({
      method: 'GET',
      url: '/api/users/subscriptions/personal',
      headers: { authorization: `Bearer ${member.accessToken}`, 'accept-language': acceptLanguage },
    });
    expect(response.statusCode, response.body).toBe(200);
    return {
      names: response.json<PurchasesResponse>().data.map(({ name }) => name),
      language: response.headers['content-language'],
      vary: String(response.headers.vary),
    };
  }

  it('keeps the English names as recorded', async () => {
    expect(await namesIn('en-US')).toMatchObject({
      names: ['Granted by support: 7 days, service outage \\x41', '1 Year', '1 Month'],
      language: 'en',
    });
  });

  it('words them in German and Spanish, the reason as typed', async () => {
    const german = await namesIn('de-DE,de;q=0.9');
    expect(german).toMatchObject({
      names: ['Vom Support gewährt: 7 Tage, service outage \\x41', '1 Jahr', '1 Monat'],
      language: 'de',
    });
    expect(german.vary).toMatch(/accept-language/i);
    expect((await namesIn('es')).names).toEqual([
      'Concedido por soporte: 7 días, service outage \\x41',
      '1 año',
      '1 mes',
    ]);
  });
});

describe('a purchase name not made from a plan or a grant', () => {
  it('stays as recorded in every language: a renamed plan, an App Store product id', () => {
    for (const locale of ['de', 'es'] as const) {
      expect(
        purchaseNameIn(locale, {
          planName: 'Founders deal',
          provider: 'Stripe',
          days: 30,
          grant: null,
        }),
      ).toBe('Founders deal');
      expect(
        purchaseNameIn(locale, {
          planName: 'premium.lifetime',
          provider: 'Apple',
          days: 365,
          grant: null,
        }),
      ).toBe('premium.lifetime');
      // A grant recorded under another wording keeps it.
      expect(
        purchaseNameIn(locale, {
          planName: 'Goodwill',
          provider: 'Support',
          days: 7,
          grant: { days: 7, reason: 'goodwill' },
        }),
      ).toBe('Goodwill');
    }
  });

  it('words one day of a grant in the singular', () => {
    expect(
      purchaseNameIn('de', {
        planName: 'Granted by support: 1 day, sorry',
        provider: 'Support',
        days: 1,
        grant: { days: 1, reason: 'sorry' },
      }),
    ).toBe('Vom Support gewährt: 1 Tag, sorry');
  });
});
