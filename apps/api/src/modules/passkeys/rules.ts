// What the passkey journeys share: the relying party they act for, their lifetimes, and what they
// depend on (docs/decisions/017-passkeys.md).
import { PASSKEY_CHALLENGE_SECONDS } from '@kegel/contract';
import type { Kysely } from 'kysely';

import type { Database } from '../../db/schema';
import type { Mailer } from '../../mail/outbox';
import type { Caller } from '../../security/client-address';
import type { RateLimiter, RateLimitRule } from '../../security/rate-limiter';
import type { TokenPair } from '@kegel/contract';
import type { SignInMethod } from '../../db/schema';

export { PASSKEY_CHALLENGE_SECONDS };

/**
 * Who the passkeys belong to, from PUBLIC_URL: its hostname is the relying party id every passkey
 * is bound to (so changing the domain strands them), its origin the only page they sign in from.
 */
export interface RelyingParty {
  id: string;
  origin: string;
  /** What the browser's dialog names the site. */
  name: string;
}

export function relyingPartyOf(publicUrl: string): RelyingParty {
  const url = new URL(publicUrl);
  return { id: url.hostname, origin: url.origin, name: 'Kegel Coach' };
}

/** What opens a session once a passkey has signed: the auth module's. */
export interface SessionOpener {
  startSession(
    userId: string,
    how: {
      method: SignInMethod;
      caller: Caller;
      credentialVersion?: number;
      provedSecondFactor?: boolean;
    },
  ): Promise<TokenPair>;
  rememberSignInAddress(
    account: { id: string; credentialVersion: number },
    caller: Caller,
  ): Promise<void>;
}

export interface PasskeysServiceDependencies {
  db: Kysely<Database>;
  relyingParty: RelyingParty;
  rateLimiter: RateLimiter;
  /**
   * Failed passkey sign-ins per client address: the budget wrong passwords have
   * (AUTH_ATTEMPTS_PER_ADDRESS_PER_HOUR), counted apart; past it, 429 until the window ends.
   */
  failedSignInsPerAddress: RateLimitRule;
  sessions: SessionOpener;
  /** Two-step sign-in: while it is on, adding or removing a passkey takes a current code. */
  secondStep: {
    requireSecondFactorIfOn(
      userId: string,
      code: string | undefined,
      caller: Caller,
    ): Promise<void>;
  };
  /** The owner is told of every passkey added: a stolen session must not add one unseen. */
  mail: Mailer;
  publicUrl: string;
  supportEmail: string;
}
