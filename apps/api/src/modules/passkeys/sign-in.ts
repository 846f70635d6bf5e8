// Signing in with a passkey: options for any passkey of the site, then the signed challenge
// checked. Complete by itself: the session opens at once, with no second step.
import {
  type PasskeyAuthenticationResponse,
  passkeyMessages,
  type PasskeyRequestOptions,
  PasskeyRequestOptionsSchema,
  type TokenPair,
} from '@kegel/contract';
import * as z from 'zod/mini';

import { AppError } from '../../errors';
import type { Caller } from '../../security/client-address';
import { rememberChallenge, useUpAnsweredChallenge, userHandleOf } from './challenges';
import * as repo from './repo';
import { loadWebAuthn } from './webauthn';
import { PASSKEY_CHALLENGE_SECONDS, type PasskeysServiceDependencies } from './rules';

/** Options for signing in with any passkey of this site the browser holds (no allowCredentials). */
export async function signInOptions(
  deps: Pick<PasskeysServiceDependencies, 'db' | 'relyingParty'>,
): Promise<PasskeyRequestOptions> {
  const { generateAuthenticationOptions } = await loadWebAuthn();
  const options = await generateAuthenticationOptions({
    rpID: deps.relyingParty.id,
    userVerification: 'preferred',
    timeout: PASSKEY_CHALLENGE_SECONDS * 1000,
  });
  await rememberChallenge(deps.db, options.challenge, 'login', null);
  return z.parse(PasskeyRequestOptionsSchema, options);
}

/**
 * Signs in with a passkey's signature. Every failure answers 401 with one message and counts
 * against the client address's budget; past it, 429 until the window ends.
 */
export async function signInWithPasskey(
  deps: PasskeysServiceDependencies,
  response: PasskeyAuthenticationResponse,
  caller: Caller,
): Promise<TokenPair> {
  const { rateLimiter, failedSignInsPerAddress } = deps;
  const budget = await rateLimiter.peek(failedSignInsPerAddress, caller.clientAddress);
  if (!budget.isAllowed) {
    throw new AppError(429, passkeyMessages.tooManyFailures, budget.retryAfterSeconds);
  }
  const passkey = await verifiedPasskey(deps, response);
  if (!passkey) {
    const spent = await rateLimiter.hit(failedSignInsPerAddress, caller.clientAddress);
    throw spent.isAllowed
      ? new AppError(401, passkeyMessages.signInFailed)
      : new AppError(429, passkeyMessages.tooManyFailures, spent.retryAfterSeconds);
  }
  const account = { id: passkey.userId, credentialVersion: passkey.credentialVersion };
  const tokens = await deps.sessions.startSession(account.id, {
    method: 'passkey',
    caller,
    credentialVersion: account.credentialVersion,
    // With the device's own check of its owner (a PIN, a fingerprint), a passkey is two factors
    // at once, and the support desk counts it as the second; a key only touched is possession.
    provedSecondFactor: passkey.userVerified,
  });
  // The owner's network: the limits that keep strangers out never keep him out from here.
  await deps.sessions.rememberSignInAddress(account, caller);
  return tokens;
}

/**
 * The passkey the answer names, if its signature, challenge and counter all hold; its new
 * counter and backup state recorded. The challenge is used up first, whichever passkey the
 * answer names: were an unknown one to leave it open, the same challenge answered again with a
 * known passkey would tell whether an id is registered.
 */
async function verifiedPasskey(
  deps: Pick<PasskeysServiceDependencies, 'db' | 'relyingParty'>,
  response: PasskeyAuthenticationResponse,
) {
  const { clientDataJSON } = response.response;
  const challenge = await useUpAnsweredChallenge(deps.db, clientDataJSON, 'login', null);
  if (!challenge) return undefined;
  const passkey = await repo.findPasskeyForSignIn(deps.db, response.id);
  if (!passkey) return undefined;
  // A discoverable passkey names its account too: it must be the one the passkey was added to.
  const { userHandle } = response.response;
  const ownHandle = Buffer.from(userHandleOf(passkey.userId)).toString('base64url');
  if (userHandle && userHandle !== ownHandle) return undefined;
  const { verifyAuthenticationResponse } = await loadWebAuthn();
  const verification = await verifyAuthenticationResponse({
    response,
    expectedChallenge: challenge,
    expectedOrigin: deps.relyingParty.origin,
    expectedRPID: deps.relyingParty.id,
    credential: {
      id: passkey.credentialId,
      publicKey: new Uint8Array(Buffer.from(passkey.publicKey, 'base64url')),
      counter: passkey.counter,
      transports: passkey.transports,
    },
    requireUserVerification: false,
  }).catch(() => undefined);
  if (!verification?.verified) return undefined;
  const { newCounter, credentialDeviceType, credentialBackedUp } = verification.authenticationInfo;
  const isRecorded = await repo.recordPasskeySignIn(deps.db, {
    id: passkey.id,
    checkedCounter: passkey.counter,
    newCounter,
    deviceType: credentialDeviceType,
    backedUp: credentialBackedUp,
  });
  const { userVerified } = verification.authenticationInfo;
  return isRecorded ? { ...passkey, userVerified } : undefined;
}
