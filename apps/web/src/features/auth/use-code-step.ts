import { useCallback } from 'react';
import { useLocation, useNavigate } from 'react-router';

import { paths } from '../../config/paths';
import type { SignInOutcome } from './api';
import { useGoOnAfterSignIn } from './use-go-on-after-sign-in';

/**
 * Two-step sign-in's code step is the login page with the sign-in's token in the history entry's
 * state: never in the address, which lands in logs and the history list. A password, Google or
 * Apple sign-in that answers "code needed" (on the login or the register page) goes there.
 */
function useAskForCode(): (mfaToken: string) => void {
  const navigate = useNavigate();
  const { search } = useLocation();
  return useCallback(
    (mfaToken: string) => {
      void navigate({ pathname: paths.auth.login.path, search }, { state: { mfaToken } });
    },
    [navigate, search],
  );
}

/** The token of the sign-in waiting for its code, if this history entry carries one. */
export function useWaitingSignIn(): string | undefined {
  const { state } = useLocation() as { state: unknown };
  if (typeof state !== 'object' || state === null || !('mfaToken' in state)) return undefined;
  return typeof state.mfaToken === 'string' ? state.mfaToken : undefined;
}

/** Takes the person on once signed in, or to the code step when the account asks for one. */
export function useAfterFirstStep(): (outcome: SignInOutcome) => void {
  const goOn = useGoOnAfterSignIn();
  const askForCode = useAskForCode();
  return useCallback(
    (outcome: SignInOutcome) => {
      if (outcome.kind === 'code-needed') askForCode(outcome.mfaToken);
      else goOn();
    },
    [askForCode, goOn],
  );
}
