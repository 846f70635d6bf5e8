// What two-step sign-in's journeys share (ADR 018): its lifetimes and limits, the codes of an
// authenticator app (TOTP, RFC 6238, through `otpauth`) and recovery codes, and what the module
// needs of the rest of the server.
import { randomBytes } from 'node:crypto';

import type { MfaRequired, TokenPair } from '@kegel/contract';
import type { Kysely } from 'kysely';
import { Secret, TOTP } from 'otpauth';

import type { Database, SignInMethod } from '../../db/schema';
import type { Mailer } from '../../mail/outbox';
import type { Caller } from '../../security/client-address';

/** How long a sign-in waits for its code: enough to open the app, short for a stolen token. */
export const SIGN_IN_CHALLENGE_SECONDS = 5 * 60;
/** Wrong codes one sign-in may take before it must start again from the password. */
export const WRONG_CODES_PER_CHALLENGE = 5;

/** The parameters every authenticator app understands (Google Authenticator knows no others). */
const TOTP_SETTINGS = { algorithm: 'SHA1', digits: 6, period: 30 } as const;
/** A code of the step before or after is taken too: a phone's clock a little off still works. */
const TOTP_WINDOW_STEPS = 1;
const ISSUER = 'Kegel Coach';

/** A new authenticator secret: 160 random bits, as RFC 4226 recommends for HMAC-SHA-1. */
export function newAuthenticatorSecret(): string {
  return new Secret({ size: 20 }).base32;
}

/** The `otpauth://` URL an app reads from the QR code: the account's email names the entry. */
export function authenticatorUrl(secret: string, email: string): string {
  return authenticator(secret, email).toString();
}

function authenticator(secret: string, label = ''): TOTP {
  return new TOTP({
    issuer: ISSUER,
    label,
    secret: Secret.fromBase32(secret),
    ...TOTP_SETTINGS,
  });
}

/**
 * The time step a code belongs to, if it is right now (within a step either way); undefined if
 * not. The caller takes each step once, so a code cannot be used twice.
 */
export function stepOfCode(secret: string, code: string, now = Date.now()): number | undefined {
  const totp = authenticator(secret);
  const delta = totp.validate({ token: code, timestamp: now, window: TOTP_WINDOW_STEPS });
  return delta === null ? undefined : totp.counter({ timestamp: now }) + delta;
}

/** Crockford's base32: no i, l, o or u, so a code copied by hand is not misread. */
const RECOVERY_ALPHABET = '0123456789abcdefghjkmnpqrstvwxyz';
export const RECOVERY_CODE_GROUPS = 4;
const RECOVERY_GROUP_LENGTH = 4;

/**
 * Ten recovery codes like `7k2m-qd9x-4f1a-hw3p`: 16 characters of 5 bits, 80 random bits each,
 * so their plain SHA-256 keeps them (no key to lose if TOKEN_SECRET is ever replaced).
 */
export function newRecoveryCodes(count: number): string[] {
  return Array.from({ length: count }, () => {
    const bytes = randomBytes(RECOVERY_CODE_GROUPS * RECOVERY_GROUP_LENGTH);
    const characters = [...bytes].map((byte) => RECOVERY_ALPHABET[byte % 32]);
    const groups: string[] = [];
    for (let index = 0; index < characters.length; index += RECOVERY_GROUP_LENGTH) {
      groups.push(characters.slice(index, index + RECOVERY_GROUP_LENGTH).join(''));
    }
    return groups.join('-');
  });
}

/**
 * A recovery code as it is hashed: no separators, lower case, and the letters people read for
 * Crockford's digits (o for 0, i and l for 1) taken as those digits.
 */
export function normalizedRecoveryCode(code: string): string {
  return code.replace(/[\s-]/g, '').toLowerCase().replace(/o/g, '0').replace(/[il]/g, '1');
}

/** The account a code is checked for: whose failure budgets it spends. */
export interface CodeOwner {
  id: string;
  email: string;
  credentialVersion: number;
  /** His language (users.locale): the notices of changes go out in it. */
  locale: string | null;
}

/**
 * What the module needs of the sign-in machinery (the auth module, handed in by the composition
 * root): opening a session, remembering the owner's network, and the failure gates.
 */
export interface SignInMachinery {
  startSession(
    userId: string,
    how: {
      method: SignInMethod;
      caller: Caller;
      credentialVersion: number;
      provedSecondFactor?: boolean;
    },
  ): Promise<TokenPair>;
  rememberSignInAddress(
    account: { id: string; credentialVersion: number },
    caller: Caller,
  ): Promise<void>;
  /** The session's owner proved a second factor in it now; undefined when it has ended. */
  markSecondFactorProved(sessionId: string): Promise<Date | undefined>;
  /**
   * Runs one check of a sign-in secret for the account from the caller's network under the
   * failure gates a password passes through (ADR 011): a wrong code costs as a wrong password,
   * and 429 answers while failures hold the gate shut. True when `isRight` said so.
   */
  checkUnderFailureGates(
    account: CodeOwner,
    caller: Caller,
    isRight: () => Promise<boolean>,
  ): Promise<boolean>;
}

export interface TwoStepDependencies {
  db: Kysely<Database>;
  /** Seals the authenticator secrets at rest (AES-256-GCM; derived from TOKEN_SECRET). */
  secretKey: Buffer;
  signIn: SignInMachinery;
  /** Each change of two-step sign-in is mailed to the owner (owner-notices.ts). */
  mail: Mailer;
  publicUrl: string;
  supportEmail: string;
}

/** What a sign-in answers once the first step is right: tokens, or the call for a code. */
export type FirstStepOutcome = TokenPair | MfaRequired;
