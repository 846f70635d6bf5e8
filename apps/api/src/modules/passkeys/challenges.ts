// The challenges of passkey ceremonies: issued with what they are for, and used up as they are
// checked (docs/decisions/017-passkeys.md).
import type { Kysely } from 'kysely';

import type { Database, PasskeyChallengePurpose } from '../../db/schema';
import { hashSecret } from '../../security/keys';
import * as repo from './repo';
import { PASSKEY_CHALLENGE_SECONDS } from './rules';

/** Who asks to add a passkey: the member and the session he asks from. */
export interface PasskeyOwner {
  userId: string;
  sessionId: string;
}

/**
 * Remembers a challenge just handed out, for what it was issued for (a registration's: the member
 * and session), for 5 minutes. Expired ones are swept on the way.
 */
export async function rememberChallenge(
  db: Kysely<Database>,
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
    expiresAt: new Date(Date.now() + PASSKEY_CHALLENGE_SECONDS * 1000),
  });
}

/**
 * The check @simplewebauthn/server runs on an answer's challenge: true only for an unexpired
 * challenge issued for this purpose (and owner), which it uses up, so of two answers one passes.
 */
export function challengeCheck(
  db: Kysely<Database>,
  purpose: PasskeyChallengePurpose,
  owner: PasskeyOwner | null,
): (challenge: string) => Promise<boolean> {
  return (challenge) =>
    repo.consumeChallenge(db, {
      challengeHash: hashSecret(challenge),
      purpose,
      userId: owner?.userId ?? null,
      sessionId: owner?.sessionId ?? null,
    });
}

/**
 * Uses up the challenge an answer carries in its client data, before anything else of the answer
 * is looked at: the challenge, if it was an unexpired one issued for this purpose (and owner). So
 * an answer spends its challenge whatever else it names, and no answer learns more than another.
 */
export async function useUpAnsweredChallenge(
  db: Kysely<Database>,
  clientDataJSON: string,
  purpose: PasskeyChallengePurpose,
  owner: PasskeyOwner | null,
): Promise<string | undefined> {
  const challenge = challengeIn(clientDataJSON);
  if (challenge === undefined) return undefined;
  return (await challengeCheck(db, purpose, owner)(challenge)) ? challenge : undefined;
}

/** The challenge of an answer's client data (base64url JSON), if it names one. */
function challengeIn(clientDataJSON: string): string | undefined {
  try {
    const clientData: unknown = JSON.parse(Buffer.from(clientDataJSON, 'base64url').toString());
    if (typeof clientData !== 'object' || clientData === null) return undefined;
    const { challenge } = clientData as { challenge?: unknown };
    return typeof challenge === 'string' && challenge !== '' ? challenge : undefined;
  } catch {
    return undefined;
  }
}

/** The member's account id as WebAuthn's user handle: its 16 bytes, nothing personal. */
export function userHandleOf(userId: string): Uint8Array<ArrayBuffer> {
  return new Uint8Array(Buffer.from(userId.replace(/-/g, ''), 'hex'));
}
