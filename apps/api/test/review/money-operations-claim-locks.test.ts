// Adversarial review of the locks a claim by order id takes. Every change of an App Store
// subscription locks the subscription, then the member (member-bindings.ts): a notification
// arriving for the second subscription of an order while a member claims it must queue behind the
// claim or ahead of it, never deadlock with it (PostgreSQL would abort one: a 500, or a notification
// to be delivered again). Several connections are needed, so PostgreSQL only (PGlite runs one
// statement at a time). The test fails if the claim and the notification deadlock.
import type { AppStoreSandbox } from '@kegel/sandbox/app-store-sandbox';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { createOrderClaims } from '../../src/modules/app-store/order-claims';
import { lockSubscription } from '../../src/modules/app-store/repo';
import { usersRepo } from '../../src/modules/users';
import { registerAndLogin } from '../support/accounts';
import { startTestServer, type TestServer, uniqueEmail } from '../support/test-app';
import { testDatabaseKinds } from '../support/test-databases';

describe.each(testDatabaseKinds)(
  'review: a claim by order id and a notification at once on $name',
  (kind) => {
    let server: TestServer;
    let sandbox: AppStoreSandbox;
    const severalConnections = kind.name === 'PostgreSQL';
    beforeAll(async () => {
      if (!severalConnections) return;
      server = await startTestServer(kind);
      const running = server.app.appStoreSandbox;
      if (!running) throw new Error('expected the App Store sandbox');
      sandbox = running;
    });
    afterAll(async () => {
      if (severalConnections) await server.close();
    });

    /** Resolves once some transaction waits for an advisory lock (the claim, for the second). */
    async function someoneWaitsForAnAdvisoryLock(): Promise<void> {
      for (;;) {
        const { rows } = await sql<{ waiting: number }>`
          select count(*)::int as waiting from pg_locks
          where locktype = 'advisory' and not granted`.execute(server.app.database.db);
        if ((rows[0]?.waiting ?? 0) > 0) return;
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
    }

    it.runIf(severalConnections)(
      'locks every subscription of the order before the member, as a notification does',
      async () => {
        const email = uniqueEmail('claim-locks');
        await registerAndLogin(server.app, email, 'correct horse');
        const { id: userId } = await server.app.database.db
          .selectFrom('users')
          .select('id')
          .where('email', '=', email)
          .executeTakeFirstOrThrow();
        const first = await sandbox.subscribe({ productId: 'premium.month', deliver: false });
        const second = await sandbox.subscribe({ productId: 'premium.year', deliver: false });
        const api = server.app.appStoreServerApi;
        if (!api) throw new Error('expected the App Store Server API');
        const found = (
          await Promise.all([first, second].map(({ orderId }) => api.lookUpOrder(orderId)))
        ).flat();
        // The subscription the claim takes last (it sorts them).
        const last = found
          .map((each) => ({
            environment: each.environment,
            originalTransactionId: each.originalTransactionId,
          }))
          .sort((a, b) =>
            `${a.environment}:${a.originalTransactionId}`.localeCompare(
              `${b.environment}:${b.originalTransactionId}`,
            ),
          )
          .at(-1)!;
        const claims = createOrderClaims({
          db: server.app.database.db,
          lookUpOrder: () => Promise.resolve(found),
          rateLimiter: server.app.rateLimiter,
          claimsPerMember: { name: 'review-claim-locks', limit: 100, windowSeconds: 3600 },
          supportEmail: 'help@kegel.test',
        });

        let claim: Promise<unknown> | undefined;
        // What a notification for the last subscription does: the subscription, then the member.
        const notification = server.app.database.db.transaction().execute(async (transaction) => {
          await lockSubscription(transaction, last);
          claim = claims.claimOrder(userId, 'ORDERLOCKS1');
          claim.catch(() => {});
          await someoneWaitsForAnAdvisoryLock();
          await usersRepo.lockUser(transaction, userId);
        });
        await expect(notification).resolves.toBeUndefined();
        await expect(claim).resolves.toMatchObject({
          originalTransactionIds: expect.arrayContaining([
            first.originalTransactionId,
            second.originalTransactionId,
          ]),
        });
      },
    );
  },
);
