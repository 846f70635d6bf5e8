// What the account journeys share: their lifetimes, limits, messages and dependencies. Each
// journey has a file of its own (sessions.ts, registration.ts, passwords.ts, email-change.ts,
// email-change-undo.ts) over the shared checks of credential-checks.ts;
// service.ts puts them together.
import { authMessages } from '@kegel/contract';
import type { Kysely } from 'kysely';

import type { Database } from '../../db/schema';
import type { Mailer } from '../../mail/outbox';
import { type PasswordHasher } from '../../security/password-hasher';
import type { PasswordScreen } from '../../security/password-screen';
import type { FailureGateRule, RateLimiter, RateLimitRule } from '../../security/rate-limiter';
import type { SessionTokens } from '../../security/session-tokens';
import type { TwoStepService } from '../two-step';
import type { SignInLog } from './sign-in-history';

export const SESSION_LIFETIME_SECONDS = 30 * 24 * 60 * 60;
/** Two tabs refreshing with the same token at once both get the same successor within this. */
export const REFRESH_GRACE_SECONDS = 10;
export const PASSWORD_RESET_VALID_SECONDS = 60 * 60;
export const EMAIL_CHANGE_VALID_SECONDS = 24 * 60 * 60;

/**
 * Wrong passwords (sign-in, change password, change email) for one account from one client
 * address: five free, then a wait that doubles after each further failure. Keyed by account and
 * address, so a stranger who knows the email locks out only himself, not the owner.
 */
export const passwordFailureGate: FailureGateRule = {
  name: 'password-failures',
  freeFailures: 5,
  firstDelaySeconds: 30,
  maxDelaySeconds: 15 * 60,
  forgetAfterSeconds: 24 * 60 * 60,
};

/**
 * Wrong passwords for one account from addresses it never signed in from, all together: past 50
 * in an hour, a wrong password is answered 429 rather than 401 (guessing spread over many
 * addresses is slowed). It never refuses the right password: the owner on a network he has not
 * used lately still gets in, whatever strangers elsewhere try (docs/security.md).
 */
export const accountFailuresRule: RateLimitRule = {
  name: 'account-failures',
  limit: 50,
  windowSeconds: 60 * 60,
};

export const rateLimitRules = {
  /** Where an account signed in lately (password, Google or Apple): its owner's own networks. */
  knownAddresses: {
    name: 'known-address',
    limit: Number.MAX_SAFE_INTEGER,
    windowSeconds: 30 * 24 * 60 * 60,
  },
  /** Reset mails for one account asked for from one address. */
  resetMailsPerAccountAndAddress: {
    name: 'reset-mails-account-address',
    limit: 3,
    windowSeconds: 60 * 60,
  },
  /** Reset mails for one account from addresses it never signed in from. */
  resetMailsPerAccount: { name: 'reset-mails-account', limit: 10, windowSeconds: 60 * 60 },
  /** Reset mails (to any accounts) asked for from one address. */
  resetMailsPerAddress: { name: 'reset-mails-address', limit: 30, windowSeconds: 60 * 60 },
  /**
   * Renewals of one session: about 4 an hour in use (access tokens live 15 minutes), so this
   * stops only a client renewing in a loop. Per session, not per address: however many people
   * share a NAT address, their renewals never meet a common budget (docs/security.md).
   */
  refreshesPerSession: { name: 'refreshes-session', limit: 30, windowSeconds: 60 },
} satisfies Record<string, RateLimitRule>;

/** An account as the networks it signs in from are remembered for: its id and credentials. */
export interface KnownAccount {
  id: string;
  credentialVersion: number;
}

/** How long a password check waits for its turn while others for the same account run. */
export const GATE_QUEUE_MS = 5_000;

export type SignInCheck = 'valid' | 'invalid';

/** The auth module's answers: written once in the contract, which the web app reads too. */
export const messages = authMessages;

export interface AuthServiceDependencies {
  db: Kysely<Database>;
  hasher: PasswordHasher;
  /** Password sign-ins under way at once (the others wait their turn before any work). */
  passwordSignInsAtOnce: number;
  passwordScreen: PasswordScreen;
  tokens: SessionTokens;
  rateLimiter: RateLimiter;
  mail: Mailer;
  publicUrl: string;
  supportEmail: string;
  /** New accounts one client address may create per hour. */
  registrationsPerAddress: RateLimitRule;
  /**
   * What one client address may try across all accounts: registrations (an existing email
   * answers 409) and reset requests; and, counted apart with the same limit, wrong passwords for
   * accounts never signed in from there (credential stuffing), which it only slows.
   */
  attemptsPerAddress: RateLimitRule;
  /**
   * Told (after commit) when an account's email changed, so the payment provider's copy can
   * follow; it must not throw, nor hold the member's request up.
   */
  onEmailChanged?: (userId: string) => void;
  /**
   * Two-step sign-in (ADR 018): asked after a right password (a code may be owed before any
   * session), and before a change of password or email (a code must come with it).
   */
  secondStep: Pick<TwoStepService, 'isOn' | 'challengeIfOn' | 'requireSecondFactorIfOn'>;
  /** Where a sign-in that could not be recorded is reported (it is never refused for that). */
  log?: SignInLog;
}

/** When a link made now expires: its mail is not worth sending after then. */
export function secondsFromNow(seconds: number): Date {
  return new Date(Date.now() + seconds * 1000);
}
