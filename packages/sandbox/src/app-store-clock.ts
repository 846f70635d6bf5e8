// What the App Store does on its own as time passes, for the sandbox (app-store-sandbox.ts): when
// the development clock moves, each subscription whose period ended renews (auto-renew on) or
// expires (off), and each grace period that ended ends, as Stripe's test clocks advance a
// subscription. Every event is the sandbox's own action, so it is signed and delivered as if a
// developer had pressed its button, in the order it happened.

/** What the clock reads of a subscription (the sandbox's own record has more). */
export interface ClockSubscription {
  originalTransactionId: string;
  state: string;
  autoRenew: boolean;
  gracePeriodExpiresDate?: number;
  transactions: ReadonlyArray<{ expiresDate: number }>;
}

/** The sandbox's actions the passing time takes; each resolves with its signed notification. */
export interface ClockActions {
  renew(originalTransactionId: string): Promise<string>;
  expire(originalTransactionId: string): Promise<string>;
  expireGracePeriod(originalTransactionId: string): Promise<string>;
}

const DAY_MS = 24 * 60 * 60 * 1000;
/** Apple stops retrying a failed renewal after 60 days, and the subscription expires. */
const BILLING_RETRY_MS = 60 * DAY_MS;
/** A week's plan over a year of moves is 52 renewals; this bounds a runaway loop only. */
const MAX_RENEWALS_AT_ONCE = 1000;

/**
 * Brings every subscription up to `now`: renewals one period at a time until the current period
 * ends after now, or one expiry. Resolves with the notifications sent, in order.
 */
export async function passTheClock(
  subscriptions: Iterable<ClockSubscription>,
  actions: ClockActions,
  now: number,
): Promise<string[]> {
  const sent: string[] = [];
  for (const subscription of subscriptions) {
    const id = subscription.originalTransactionId;
    const periodEnd = () => subscription.transactions.at(-1)?.expiresDate ?? Infinity;
    if (subscription.state === 'active') {
      for (let renewals = 0; subscription.autoRenew && periodEnd() <= now; renewals += 1) {
        if (renewals >= MAX_RENEWALS_AT_ONCE) break;
        sent.push(await actions.renew(id));
      }
      if (!subscription.autoRenew && periodEnd() <= now) sent.push(await actions.expire(id));
    } else if (subscription.state === 'gracePeriod') {
      if ((subscription.gracePeriodExpiresDate ?? Infinity) <= now) {
        sent.push(await actions.expireGracePeriod(id));
      }
    }
    // After the branch above: a grace period that just ended is billing retry now.
    if (subscription.state === 'billingRetry' && periodEnd() + BILLING_RETRY_MS <= now) {
      sent.push(await actions.expire(id));
    }
  }
  return sent;
}
