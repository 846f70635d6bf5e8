// Passkeys (docs/decisions/017-passkeys.md): a member adds them in Account Settings and signs in
// with one instead of a password. @simplewebauthn/server makes the options and checks the
// answers; the rules of the product are in the journeys this puts together:
//
// - a challenge is single use (deleted as it is checked, so of two answers one passes), lives
//   5 minutes and is bound to its purpose, and a registration's to the member and the session
//   that asked for it (challenges.ts);
// - adding one takes a current code while two-step sign-in is on (a passkey skips the code step),
//   and tells the owner by email (registration.ts);
// - a passkey sign-in is complete by itself: it opens a session (method 'passkey') at once; every
//   failure answers 401 with one message and counts against the client address's budget; a
//   signature counter that goes backwards (when it is not always 0) is refused (sign-in.ts);
// - the last way into an account cannot be removed (passkey-list.ts).
import type { PasskeyAuthenticationResponse, PasskeyRegistrationResponse } from '@kegel/contract';

import type { Caller } from '../../security/client-address';
import type { PasskeyOwner } from './challenges';
import { listPasskeys, removePasskey, renamePasskey } from './passkey-list';
import { registerPasskey, registrationOptions } from './registration';
import type { PasskeysServiceDependencies } from './rules';
import { signInOptions, signInWithPasskey } from './sign-in';

export type PasskeysService = ReturnType<typeof createPasskeysService>;

export function createPasskeysService(deps: PasskeysServiceDependencies) {
  const { db } = deps;
  return {
    /**
     * While two-step sign-in is on, only with a current code: a passkey signs in with no code, so
     * a stolen session must not add one.
     */
    registrationOptions: async (
      owner: PasskeyOwner & { email: string; locale: string | null },
      code: string | undefined,
      caller: Caller,
    ) => {
      await deps.secondStep.requireSecondFactorIfOn(owner.userId, code, caller);
      return registrationOptions(deps, owner);
    },
    register: (
      owner: PasskeyOwner & { email: string; locale: string | null },
      input: { response: PasskeyRegistrationResponse; name?: string },
      caller: Caller,
    ) => registerPasskey(deps, owner, input, caller),
    signInOptions: () => signInOptions(deps),
    signIn: (response: PasskeyAuthenticationResponse, caller: Caller) =>
      signInWithPasskey(deps, response, caller),
    list: (userId: string) => listPasskeys(db, userId),
    rename: (userId: string, id: string, name: string) => renamePasskey(db, userId, id, name),
    /** While two-step sign-in is on, only with a current code: a stolen session cannot. */
    remove: async (userId: string, id: string, code: string | undefined, caller: Caller) => {
      await deps.secondStep.requireSecondFactorIfOn(userId, code, caller);
      await removePasskey(db, userId, id);
    },
  };
}
