// Adding a passkey: the options for the browser's dialog, then its answer checked and kept, and
// the owner told by email.
import {
  type PasskeyCreationOptions,
  PasskeyCreationOptionsSchema,
  type PasskeyItem,
  passkeyMessages,
  type PasskeyRegistrationResponse,
} from '@kegel/contract';
import * as z from 'zod/mini';

import { AppError, isUniqueViolation } from '../../errors';
import { mailLocaleOf } from '../../mail/mail-locale';
import { passkeyAddedEmail } from '../../mail/templates';
import type { Caller } from '../../security/client-address';
import { challengeCheck, type PasskeyOwner, rememberChallenge, userHandleOf } from './challenges';
import { defaultPasskeyName, toPasskeyItem } from './passkey-items';
import * as repo from './repo';
import { loadWebAuthn } from './webauthn';
import { PASSKEY_CHALLENGE_SECONDS, type PasskeysServiceDependencies } from './rules';

/** Options for the browser's dialog that makes a passkey for the signed-in member. */
export async function registrationOptions(
  deps: Pick<PasskeysServiceDependencies, 'db' | 'relyingParty'>,
  owner: PasskeyOwner & { email: string; locale: string | null },
): Promise<PasskeyCreationOptions> {
  const { generateRegistrationOptions } = await loadWebAuthn();
  const existing = await repo.listPasskeysOfUser(deps.db, owner.userId);
  const options = await generateRegistrationOptions({
    rpName: deps.relyingParty.name,
    rpID: deps.relyingParty.id,
    userName: owner.email,
    userDisplayName: owner.email,
    userID: userHandleOf(owner.userId),
    timeout: PASSKEY_CHALLENGE_SECONDS * 1000,
    attestationType: 'none',
    // One authenticator never holds two passkeys of one member.
    excludeCredentials: existing.map((passkey) => ({
      id: passkey.credentialId,
      transports: passkey.transports,
    })),
    // A passkey is a discoverable credential: it signs in without an email typed first.
    authenticatorSelection: { residentKey: 'required', userVerification: 'preferred' },
  });
  await rememberChallenge(deps.db, options.challenge, 'register', owner);
  // Read through the contract's schema: the library types some of its fields more loosely.
  return z.parse(PasskeyCreationOptionsSchema, options);
}

/** Adds the passkey the browser made, once its answer verifies against our challenge. */
export async function registerPasskey(
  deps: PasskeysServiceDependencies,
  owner: PasskeyOwner & { email: string; locale: string | null },
  input: { response: PasskeyRegistrationResponse; name?: string },
  caller: Caller,
): Promise<PasskeyItem> {
  const { verifyRegistrationResponse } = await loadWebAuthn();
  const verification = await verifyRegistrationResponse({
    response: input.response,
    expectedChallenge: challengeCheck(deps.db, 'register', owner),
    expectedOrigin: deps.relyingParty.origin,
    expectedRPID: deps.relyingParty.id,
    requireUserVerification: false,
  }).catch(() => undefined);
  if (!verification?.verified) throw new AppError(400, passkeyMessages.registrationFailed);
  const { credential, credentialDeviceType, credentialBackedUp } = verification.registrationInfo;
  const name = input.name ?? defaultPasskeyName(caller);
  try {
    const added = await deps.db.transaction().execute(async (transaction) => {
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
          locale: mailLocaleOf(owner),
        }),
      });
      return passkey;
    });
    return toPasskeyItem(added);
  } catch (error) {
    if (isUniqueViolation(error)) throw new AppError(409, passkeyMessages.alreadyRegistered);
    throw error;
  }
}
