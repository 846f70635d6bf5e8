// Passkeys (docs/decisions/017-passkeys.md): a member adds them in Account Settings and signs in
// with one instead of a password. @simplewebauthn/server makes the options and checks the
// answers; the rules of the product are here:
//
// - a challenge is single use (deleted as it is checked, so of two answers one passes), lives
//   5 minutes and is bound to its purpose, and a registration's to the member and the session
//   that asked for it;
// - a passkey sign-in is complete by itself: it opens a session (method 'passkey') at once;
// - every failed sign-in answers 401 with one message, whatever failed, and counts against the
//   client address's budget;
// - a signature counter that goes backwards (when it is not always 0) is refused: the passkey
//   may have been copied;
// - the last way into an account (no password, no Google or Apple identity) cannot be removed.
import {
  type PasskeyAuthenticationResponse,
  type PasskeyCreationOptions,
  PasskeyCreationOptionsSchema,
  type PasskeyItem,
  PASSKEY_NAME_MAX_LENGTH,
  passkeyMessages,
  type PasskeyRegistrationResponse,
  type PasskeyRequestOptions,
  PasskeyRequestOptionsSchema,
  type TokenPair,
} from '@kegel/contract';
import {
  generateAuthenticationOptions,
  generateRegistrationOptions,
  verifyAuthenticationResponse,
  verifyRegistrationResponse,
} from '@simplewebauthn/server';
import * as z from 'zod/mini';

import type { PasskeyChallengePurpose } from '../../db/schema';
import { isUuid } from '../../db/ids';
import { AppError, isUniqueViolation } from '../../errors';
import type { Caller } from '../../security/client-address';
import { deviceLabel } from '../../security/device-label';
import { passkeyAddedEmail } from '../../mail/templates';
import { hashSecret } from '../../security/keys';
import { usersRepo } from '../users';
import * as repo from './repo';
import { PASSKEY_CHALLENGE_SECONDS, type PasskeysServiceDependencies } from './rules';

export type PasskeysService = ReturnType<typeof createPasskeysService>;

/** The member's account id as WebAuthn's user handle: its 16 bytes, nothing personal. */
function userHandleOf(userId: string): Uint8Array<ArrayBuffer> {
  return new Uint8Array(Buffer.from(userId.replace(/-/g, ''), 'hex'));
}

function toItem(passkey: {
  id: string;
  name: string;
  createdAt: Date;
  lastUsedAt: Date | null;
  deviceType: 'singleDevice' | 'multiDevice';
}): PasskeyItem {
  return {
    id: passkey.id,
    name: passkey.name,
    createdAt: passkey.createdAt.toISOString(),
    lastUsedAt: passkey.lastUsedAt?.toISOString() ?? null,
    isSynced: passkey.deviceType === 'multiDevice',
  };
}

/** A passkey added without a name is named after where it was made: "Chrome on macOS". */
function defaultName(caller: Caller): string {
  const label = deviceLabel(caller.userAgent);
  // Bowser reads some agents (a script's, a bare 'curl') as nothing at all.
  return label && label !== 'Unknown device' ? label.slice(0, PASSKEY_NAME_MAX_LENGTH) : 'Passkey';
}

/** Who asks to add a passkey: the member and the session he asks from. */
export interface PasskeyOwner {
  userId: string;
  sessionId: string;
}

export function createPasskeysService(deps: PasskeysServiceDependencies) {
  const { db, relyingParty } = deps;
  const timeoutMs = PASSKEY_CHALLENGE_SECONDS * 1000;

  /** Remembers a challenge just handed out, for what it was issued for. */
  async function rememberChallenge(
    challenge: string,
    purpose: PasskeyChallengePurpose,
    owner: PasskeyOwner | null,
  ): Promise<void> {
    await repo.deleteExpiredChallenges(db);
    await repo.insertChallenge(db, {
      challengeHash: hashSecret(challenge),
      purpose,
      userId: owner?.userId ?? null,
      sessionId: owner?.sessionId ?? null,
      expiresAt: new Date(Date.now() + timeoutMs),
    });
  }

  /** The check @simplewebauthn/server runs on the answer's challenge: it uses the challenge up. */
  function consumes(purpose: PasskeyChallengePurpose, owner: PasskeyOwner | null) {
    return (challenge: string) =>
      repo.consumeChallenge(db, {
        challengeHash: hashSecret(challenge),
        purpose,
        userId: owner?.userId ?? null,
        sessionId: owner?.sessionId ?? null,
      });
  }

  /** One answer for every failed sign-in; past the address's budget, 429 instead. */
  async function signInRefused(caller: Caller): Promise<AppError> {
    const spent = await deps.rateLimiter.hit(deps.failedSignInsPerAddress, caller.clientAddress);
    return spent.isAllowed
      ? new AppError(401, passkeyMessages.signInFailed)
      : new AppError(429, passkeyMessages.tooManyFailures, spent.retryAfterSeconds);
  }

  /** The passkey the answer names, if its signature, challenge and counter all hold. */
  async function verifiedSignIn(response: PasskeyAuthenticationResponse) {
    const passkey = await repo.findPasskeyForSignIn(db, response.id);
    if (!passkey) return undefined;
    const { userHandle } = response.response;
    // A discoverable passkey names its account too: it must be the one the passkey was added to.
    if (
      userHandle &&
      userHandle !== Buffer.from(userHandleOf(passkey.userId)).toString('base64url')
    ) {
      return undefined;
    }
    const verification = await verifyAuthenticationResponse({
      response,
      expectedChallenge: consumes('login', null),
      expectedOrigin: relyingParty.origin,
      expectedRPID: relyingParty.id,
      credential: {
        id: passkey.credentialId,
        publicKey: new Uint8Array(Buffer.from(passkey.publicKey, 'base64url')),
        counter: passkey.counter,
        transports: passkey.transports,
      },
      requireUserVerification: false,
    }).catch(() => undefined);
    if (!verification?.verified) return undefined;
    const { newCounter, credentialDeviceType, credentialBackedUp } =
      verification.authenticationInfo;
    const recorded = await repo.recordPasskeySignIn(db, {
      id: passkey.id,
      checkedCounter: passkey.counter,
      newCounter,
      deviceType: credentialDeviceType,
      backedUp: credentialBackedUp,
    });
    return recorded ? passkey : undefined;
  }

  return {
    /** Options for the browser's dialog that makes a passkey for the signed-in member. */
    async registrationOptions(
      owner: PasskeyOwner & { email: string },
    ): Promise<PasskeyCreationOptions> {
      const existing = await repo.listPasskeysOfUser(db, owner.userId);
      const options = await generateRegistrationOptions({
        rpName: relyingParty.name,
        rpID: relyingParty.id,
        userName: owner.email,
        userDisplayName: owner.email,
        userID: userHandleOf(owner.userId),
        timeout: timeoutMs,
        attestationType: 'none',
        excludeCredentials: existing.map((passkey) => ({
          id: passkey.credentialId,
          transports: passkey.transports,
        })),
        // A passkey is a discoverable credential: it signs in without an email typed first.
        authenticatorSelection: { residentKey: 'required', userVerification: 'preferred' },
      });
      await rememberChallenge(options.challenge, 'register', owner);
      // Read through the contract's schema: the library types some of its fields more loosely.
      return z.parse(PasskeyCreationOptionsSchema, options);
    },

    /** Adds the passkey the browser made, once its answer verifies against our challenge. */
    async register(
      owner: PasskeyOwner & { email: string },
      input: { response: PasskeyRegistrationResponse; name?: string },
      caller: Caller,
    ): Promise<PasskeyItem> {
      const verification = await verifyRegistrationResponse({
        response: input.response,
        expectedChallenge: consumes('register', owner),
        expectedOrigin: relyingParty.origin,
        expectedRPID: relyingParty.id,
        requireUserVerification: false,
      }).catch(() => undefined);
      if (!verification?.verified) throw new AppError(400, passkeyMessages.registrationFailed);
      const { credential, credentialDeviceType, credentialBackedUp } =
        verification.registrationInfo;
      const name = input.name ?? defaultName(caller);
      try {
        const added = await db.transaction().execute(async (transaction) => {
          const passkey = await repo.insertPasskey(transaction, {
            userId: owner.userId,
            credentialId: credential.id,
            publicKey: Buffer.from(credential.publicKey).toString('base64url'),
            counter: credential.counter,
            transports: credential.transports ?? [],
            deviceType: credentialDeviceType,
            backedUp: credentialBackedUp,
            name,
          });
          await deps.mail.enqueue(transaction, {
            to: owner.email,
            userId: owner.userId,
            template: 'passkey-added',
            content: passkeyAddedEmail({
              passkeyName: name,
              settingsUrl: `${deps.publicUrl}/dashboard/settings`,
              supportEmail: deps.supportEmail,
            }),
          });
          return passkey;
        });
        return toItem(added);
      } catch (error) {
        if (isUniqueViolation(error)) throw new AppError(409, passkeyMessages.alreadyRegistered);
        throw error;
      }
    },

    /** Options for signing in with any passkey of this site the browser holds. */
    async signInOptions(): Promise<PasskeyRequestOptions> {
      const options = await generateAuthenticationOptions({
        rpID: relyingParty.id,
        userVerification: 'preferred',
        timeout: timeoutMs,
      });
      await rememberChallenge(options.challenge, 'login', null);
      return z.parse(PasskeyRequestOptionsSchema, options);
    },

    /** Signs in with a passkey's signature: a whole sign-in, no second step. */
    async signIn(response: PasskeyAuthenticationResponse, caller: Caller): Promise<TokenPair> {
      const budget = await deps.rateLimiter.peek(
        deps.failedSignInsPerAddress,
        caller.clientAddress,
      );
      if (!budget.isAllowed) {
        throw new AppError(429, passkeyMessages.tooManyFailures, budget.retryAfterSeconds);
      }
      const passkey = await verifiedSignIn(response);
      if (!passkey) throw await signInRefused(caller);
      const account = { id: passkey.userId, credentialVersion: passkey.credentialVersion };
      const tokens = await deps.sessions.startSession(account.id, {
        method: 'passkey',
        caller,
        credentialVersion: account.credentialVersion,
      });
      await deps.sessions.rememberSignInAddress(account, caller);
      return tokens;
    },

    async list(userId: string): Promise<PasskeyItem[]> {
      return (await repo.listPasskeysOfUser(db, userId)).map(toItem);
    },

    /** Renames one of the member's passkeys; 404 for any other id. */
    async rename(userId: string, id: string, name: string): Promise<PasskeyItem> {
      const renamed = isUuid(id) ? await repo.renamePasskey(db, userId, id, name) : undefined;
      if (!renamed) throw new AppError(404, passkeyMessages.notFound);
      return toItem(renamed);
    },

    /**
     * Removes one of the member's passkeys; 404 for any other id, 409 when it is his last way in.
     * The account is locked while it is counted: two removals at once cannot each leave the
     * other passkey as the way in and so remove both.
     */
    async remove(userId: string, id: string): Promise<void> {
      if (!isUuid(id)) throw new AppError(404, passkeyMessages.notFound);
      await db.transaction().execute(async (transaction) => {
        await usersRepo.lockUser(transaction, userId);
        const ways = await repo.countWaysToSignIn(transaction, userId);
        const isOwn = (await repo.listPasskeysOfUser(transaction, userId)).some(
          (passkey) => passkey.id === id,
        );
        if (!ways || !isOwn) throw new AppError(404, passkeyMessages.notFound);
        if (!ways.hasPassword && ways.identities === 0 && ways.passkeys <= 1) {
          throw new AppError(409, passkeyMessages.lastWayToSignIn);
        }
        await repo.deletePasskey(transaction, userId, id);
      });
    },
  };
}
