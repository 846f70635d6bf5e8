// Sign in with Google and Apple (docs/decisions/005-social-sign-in.md). A provider identity is
// its `sub`:
//
// - a known `sub` always reaches its account, whatever email comes with it (Apple sends the email
//   only on the first sign-in; a changed Google address changes nothing);
// - a new `sub` with a verified email that an account has links to that account, and the owner
//   is told by email, but only where the provider answers for the address today: Apple for the
//   addresses it shares; Google for Gmail and for Workspace accounts (`hd`). Google verified any
//   other address once, when its Google account was made, and the address may have passed to
//   someone else since (a former employee's, a domain that lapsed and was bought): such a sign-in
//   is refused (409) and the person signs in to the account as before. If the linked account's
//   address had never been proven (registered with a password and nothing since), its password is
//   removed and its sessions end: whoever registered the address first may not have been its
//   owner ("pre-hijacking");
// - a new `sub` with a verified email and no account makes one;
// - an unverified email never links and never makes an account: an account under an address
//   nobody proved would let anyone squat someone else's address;
// - a new `sub` with no email cannot make an account (there would be no way to reach its owner).
import { type SignInResponse, EmailSchema, socialMessages } from '@kegel/contract';
import type { Kysely, Transaction } from 'kysely';

import type { Database } from '../../db/schema';
import { AppError, isUniqueViolation } from '../../errors';
import type { Mailer } from '../../mail/outbox';
import { mailLocaleOf } from '../../mail/mail-locale';
import { signInMethodAddedEmail } from '../../mail/templates';
import {
  type IdTokenVerifier,
  InvalidIdTokenError,
  isKeySetUnreachable,
  type VerifiedIdentity,
} from '../../security/id-token-verifier';
import type { Caller } from '../../security/client-address';
import { hashSecret } from '../../security/keys';
import type { SignInNonces } from '../../security/sign-in-nonces';
import {
  CodeRefusedError,
  type GoogleCodeExchange,
  ProviderUnavailableError,
} from '../../security/google-code-exchange';
import type { AuthService } from '../auth';
import type { TwoStepService } from '../two-step';
import { usersRepo } from '../users';
import * as repo from './repo';
import type { IdentityProviderName } from './repo';

export interface SocialServiceDependencies {
  db: Kysely<Database>;
  auth: Pick<
    AuthService,
    'startSession' | 'secureAccount' | 'rememberSignInAddress' | 'isAddressHeldForUndo'
  >;
  mail: Mailer;
  nonces: SignInNonces;
  publicUrl: string;
  supportEmail: string;
  google: { exchange: GoogleCodeExchange; verifier: IdTokenVerifier } | undefined;
  apple: { verifier: IdTokenVerifier } | undefined;
  /** Two-step sign-in: with it on, Google or Apple is only the first step (ADR 018). */
  secondStep: Pick<TwoStepService, 'challengeIfOn'>;
}

export type SocialService = ReturnType<typeof createSocialService>;

export function createSocialService(deps: SocialServiceDependencies) {
  return {
    isGoogleOn: deps.google !== undefined,
    isAppleOn: deps.apple !== undefined,
    signInWithGoogle: (code: string, caller: Caller): Promise<SignInResponse> =>
      signInWithGoogle(deps, code, caller),
    /** A nonce for the next Apple sign-in; its token must carry it (single use). */
    issueAppleNonce: (): string => deps.nonces.issue(),
    signInWithApple: (token: string, caller: Caller): Promise<SignInResponse> =>
      signInWithApple(deps, token, caller),
  };
}

async function signInWithGoogle(
  deps: SocialServiceDependencies,
  code: string,
  caller: Caller,
): Promise<SignInResponse> {
  const google = deps.google;
  if (!google) throw new AppError(404, socialMessages.googleOff);
  let identity: VerifiedIdentity;
  try {
    const idToken = await google.exchange.exchange(code);
    identity = await google.verifier.verify(idToken);
  } catch (error) {
    throw refusal(error, socialMessages.googleRefused);
  }
  return signIn(deps, 'google', identity, caller);
}

async function signInWithApple(
  deps: SocialServiceDependencies,
  token: string,
  caller: Caller,
): Promise<SignInResponse> {
  const apple = deps.apple;
  if (!apple) throw new AppError(404, socialMessages.appleOff);
  let identity: VerifiedIdentity;
  try {
    identity = await apple.verifier.verify(token);
  } catch (error) {
    throw refusal(error, socialMessages.appleRefused);
  }
  // One of our nonces, unexpired, and never seen before: a copied token cannot be replayed.
  const expires = identity.nonce ? deps.nonces.check(identity.nonce) : undefined;
  if (
    !identity.nonce ||
    expires === undefined ||
    !(await repo.useNonceOnce(deps.db, hashSecret(identity.nonce), new Date(expires * 1000)))
  ) {
    throw new AppError(401, socialMessages.appleRefused);
  }
  return signIn(deps, 'apple', identity, caller);
}

/** Turns a provider failure into the caller's answer: 401 for a bad token, 503 if unreachable. */
function refusal(error: unknown, refusedMessage: string): Error {
  if (error instanceof InvalidIdTokenError || error instanceof CodeRefusedError) {
    return new AppError(401, refusedMessage);
  }
  if (error instanceof ProviderUnavailableError || isKeySetUnreachable(error)) {
    return new AppError(503, socialMessages.unavailable);
  }
  return error as Error;
}

async function signIn(
  deps: SocialServiceDependencies,
  provider: IdentityProviderName,
  identity: VerifiedIdentity,
  caller: Caller,
): Promise<SignInResponse> {
  // Two first sign-ins at once (a double click, the same email in two tabs) collide on the
  // unique identity or email; the one that lost runs again and finds what the other made.
  for (let attempt = 0; ; attempt += 1) {
    try {
      const { userId, credentialVersion } = await accountFor(deps, provider, identity, caller);
      // With two-step sign-in on, the provider's word opens no session: a code is owed first.
      const challenge = await deps.secondStep.challengeIfOn({
        userId,
        method: provider,
        credentialVersion,
      });
      if (challenge) return challenge;
      const tokens = await deps.auth.startSession(userId, {
        method: provider,
        caller,
        credentialVersion,
      });
      // The owner's network: the limits that keep strangers out never keep him out from here.
      await deps.auth.rememberSignInAddress({ id: userId, credentialVersion }, caller);
      return tokens;
    } catch (error) {
      if (!isUniqueViolation(error) || attempt >= 2) throw error;
    }
  }
}

/** An account a sign-in reaches, with the credential version it was read at. */
interface SigningInTo {
  userId: string;
  credentialVersion: number;
}

/** The account that holds an address, as the users repo reads it. */
type AccountHoldingEmail = NonNullable<Awaited<ReturnType<typeof usersRepo.findUserByEmail>>>;

/** What one sign-in knows about whom it signs in: the provider and what it vouches for. */
interface SignInIdentity {
  provider: IdentityProviderName;
  identity: VerifiedIdentity;
  /** The identity's email, if it is one we can store. */
  email: string;
}

/**
 * The account this identity signs in to, linking or creating it by the rules above, with the
 * credential version it was read at: the session opens only if no undo or reset lands between.
 */
async function accountFor(
  deps: SocialServiceDependencies,
  provider: IdentityProviderName,
  identity: VerifiedIdentity,
  caller: Caller,
): Promise<SigningInTo> {
  const email = usableEmail(identity.email);
  return deps.db.transaction().execute(async (transaction) => {
    const known = await repo.findIdentity(transaction, provider, identity.subject);
    if (known) {
      await repo.recordIdentitySignIn(transaction, provider, identity.subject, email);
      return { userId: known.userId, credentialVersion: known.credentialVersion };
    }
    if (!email) throw new AppError(401, socialMessages.noEmail);
    if (!identity.emailVerified) throw new AppError(403, socialMessages.unverifiedEmail);

    const existing = await usersRepo.findUserByEmail(transaction, email);
    const signingIn = { provider, identity, email };
    return existing
      ? linkToAccount(deps, transaction, signingIn, existing)
      : createAccount(deps, transaction, signingIn, caller);
  });
}

async function createAccount(
  deps: SocialServiceDependencies,
  transaction: Transaction<Database>,
  { provider, identity, email }: SignInIdentity,
  caller: Caller,
): Promise<SigningInTo> {
  // Its former account may still take it back: a second account there would stop that.
  if (await deps.auth.isAddressHeldForUndo(transaction, email)) {
    throw new AppError(409, socialMessages.addressHeldForUndo);
  }
  const created = await usersRepo.insertUser(transaction, {
    email,
    passwordHash: null,
    emailVerifiedAt: new Date(),
    ...(caller.locale ? { locale: caller.locale } : {}),
  });
  await repo.insertIdentity(transaction, {
    provider,
    subject: identity.subject,
    userId: created.id,
    email,
  });
  return { userId: created.id, credentialVersion: created.credentialVersion };
}

/** Links a new identity to the account that holds its email, and tells the owner by email. */
async function linkToAccount(
  deps: SocialServiceDependencies,
  transaction: Transaction<Database>,
  { provider, identity, email }: SignInIdentity,
  existing: AccountHoldingEmail,
): Promise<SigningInTo> {
  if (provider === 'google' && !isGoogleAuthoritativeFor(email, identity)) {
    throw new AppError(409, socialMessages.emailTakenForGoogle);
  }
  // Linked only to the account as it holds the address now: an undo of an email change
  // landing meanwhile gives the account another address and ends its sessions.
  await usersRepo.lockUser(transaction, existing.id);
  const current = await usersRepo.findUserById(transaction, existing.id);
  if (current?.email.toLowerCase() !== email.toLowerCase()) {
    throw new AppError(409, socialMessages.changedMeanwhile);
  }

  const removePassword = existing.emailVerifiedAt === null && existing.passwordHash !== null;
  if (removePassword) {
    await usersRepo.removePassword(transaction, existing.id);
    // An email change or reset asked for from one of those sessions must not land later.
    await deps.auth.secureAccount(transaction, existing.id, {
      reason: `${provider} proved the email; unproven password removed`,
    });
  }
  await usersRepo.markEmailVerified(transaction, existing.id);
  await repo.insertIdentity(transaction, {
    provider,
    subject: identity.subject,
    userId: existing.id,
    email,
  });
  await deps.mail.enqueue(transaction, {
    to: existing.email,
    userId: existing.id,
    template: 'sign-in-method-added',
    content: signInMethodAddedEmail({
      provider: provider === 'google' ? 'Google' : 'Apple',
      passwordRemoved: removePassword,
      signInUrl: `${deps.publicUrl}/auth/login`,
      supportEmail: deps.supportEmail,
      locale: mailLocaleOf(existing),
    }),
  });
  return signingInTo(transaction, existing.id);
}

/** The account as the sign-in reaches it, read again after the changes made to it. */
async function signingInTo(
  transaction: Transaction<Database>,
  userId: string,
): Promise<SigningInTo> {
  const account = await usersRepo.findUserById(transaction, userId);
  // Identities go with their account (on delete cascade): this cannot be.
  if (!account) throw new Error('a sign-in identity without its account');
  return { userId, credentialVersion: account.credentialVersion };
}

/** The domains of Gmail, whose addresses Google runs (googlemail.com is Gmail's older name). */
const GMAIL_DOMAINS = new Set(['gmail.com', 'googlemail.com']);

/**
 * Whether Google answers for this address today, so that its `email_verified` proves the person
 * signing in owns it: a Gmail address, or any address of a Google Workspace account (`hd`), as
 * Google's own guidance on ID tokens has it.
 */
function isGoogleAuthoritativeFor(email: string, identity: VerifiedIdentity): boolean {
  const domain = email.slice(email.lastIndexOf('@') + 1).toLowerCase();
  return GMAIL_DOMAINS.has(domain) || identity.hostedDomain !== null;
}

/** A provider's email, if it is one we can store (trimmed, valid, not too long). */
function usableEmail(email: string | null): string | null {
  if (!email) return null;
  const parsed = EmailSchema.safeParse(email);
  return parsed.success ? parsed.data : null;
}
