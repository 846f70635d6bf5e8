// The operator's way to grant a paid checkout that was parked (a plan this server did not know,
// say): once the cause is fixed, `npm run payments:replay -- <event id> …` grants it, exactly once,
// as the webhook would have. It writes to the database the server uses; mail it writes (a new
// account's password) is sent by the server's outbox.

import type { Config } from '../../config';
import { stripeClientOf } from '../../plugins/payments';
import { type DatabaseHandle, openDatabase } from '../../db/database';
import { outboxWriter } from '../../mail/outbox';
import { deriveKey } from '../../security/keys';
import { createPasswordHasher } from '../../security/password-hasher';
import * as repo from './repo';
import { createStripeEventHandler, type OperatorLog } from './stripe-events';

const stderrLog: OperatorLog = {
  error(details, message) {
    process.stderr.write(`${message} ${JSON.stringify(details)}\n`);
  },
};

export interface ReplayResult {
  eventId: string;
  /** 'granted', 'already-granted', 'parked' (still not grantable), 'not-parked' (no such event). */
  outcome: string;
}

export async function replayParkedCheckouts(
  config: Config,
  eventIds: readonly string[],
  options: {
    /** The server's own database handle, when called inside it (tests). */
    database?: DatabaseHandle;
    /** Where to report what an operator must know (a mismatched amount); stderr by default. */
    log?: OperatorLog;
  } = {},
): Promise<ReplayResult[]> {
  const database = options.database ?? (await openDatabase(config.database));
  const hasher = createPasswordHasher();
  try {
    const handler = createStripeEventHandler({
      db: database.db,
      hasher,
      mail: outboxWriter(deriveKey(config.tokenSecret, 'outbox-encryption')),
      publicUrl: config.publicUrl,
      // Only refunds and disputes call Stripe; a replay grants, so no call is made.
      stripe: stripeClientOf(config.stripe.secretKey ?? 'sk_test_replay_makes_no_calls'),
      log: options.log ?? stderrLog,
    });
    const results: ReplayResult[] = [];
    for (const eventId of eventIds) {
      const outcome = await handler.replayParkedEvent(eventId);
      results.push({ eventId, outcome: outcome?.kind ?? 'not-parked' });
    }
    return results;
  } finally {
    await hasher.close();
    if (!options.database) await database.close();
  }
}

/** What is parked now, for the command without arguments. */
export async function listParkedCheckouts(config: Config) {
  const database = await openDatabase(config.database);
  try {
    return await repo.listParkedEvents(database.db);
  } finally {
    await database.close();
  }
}
