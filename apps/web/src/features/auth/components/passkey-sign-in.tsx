import { memo, useEffect, useState } from 'react';

import {
  browserSupportsPasskeyDialogs,
  isPasskeyDialogSuperseded,
  loadPasskeyDialogs,
  passkeyDialogError,
  passkeyDialogsIfLoaded,
} from '../../../shared/browser/passkey-dialog';
import { useIsAppRunning } from '../../../shared/browser/use-is-app-running';
import { Button } from '../../../shared/ui/button';
import { KeyIcon } from '../../../shared/ui/icons/icon-set';
import { toasts } from '../../../shared/ui/toasts';
import { passkeySignInOptions, usePasskeyLogin } from '../api';
import { useAuthText } from '../text';
import { useAfterFirstStep } from '../use-code-step';

/**
 * 'Sign in with a passkey', and the passkeys the browser offers in the email field's autofill
 * (conditional mediation: the field is marked `autocomplete="username webauthn"`). Either way the
 * sign-in is complete once the passkey has signed: there is no second step. The passkey library
 * is fetched as the page draws (the autofill asks at once), not with the page's first JavaScript.
 *
 * Memoised (it takes no props): the form around it draws again as soon as it runs, and this need
 * not (issue 30).
 */
export const PasskeySignIn = memo(function PasskeySignIn(): React.JSX.Element | null {
  const text = useAuthText();
  const isAppRunning = useIsAppRunning();
  const passkeyLogin = usePasskeyLogin();
  // Always signed in: a passkey sign-in has no second step (the server never asks for a code).
  const goOn = useAfterFirstStep();
  const [isDialogOpen, setIsDialogOpen] = useState(false);
  // Each round arms the autofill afresh: the button's dialog ends the one that was waiting.
  const [autofillRound, setAutofillRound] = useState(0);
  const canUsePasskeys = isAppRunning && browserSupportsPasskeyDialogs();
  const { mutate } = passkeyLogin;

  useEffect(() => {
    if (!canUsePasskeys) return;
    let isCurrent = true;
    async function offerInAutofill(): Promise<void> {
      const dialogs = await loadPasskeyDialogs();
      if (!isCurrent || !(await dialogs.browserSupportsWebAuthnAutofill())) return;
      const optionsJSON = await passkeySignInOptions();
      if (!isCurrent) return;
      const response = await dialogs.startAuthentication({ optionsJSON, useBrowserAutofill: true });
      if (isCurrent) mutate(response, { onSuccess: goOn });
    }
    // Quietly: a browser without autofill, a busy server or a dialog that took over leaves the
    // button, which says what went wrong when it is used.
    offerInAutofill().catch(() => undefined);
    return () => {
      isCurrent = false;
      // Not loaded yet: no dialog was started, and none will be (isCurrent).
      passkeyDialogsIfLoaded()?.WebAuthnAbortService.cancelCeremony();
    };
  }, [canUsePasskeys, autofillRound, mutate, goOn]);

  if (!canUsePasskeys) return null;

  const signInWithPasskey = async () => {
    setIsDialogOpen(true);
    try {
      const [dialogs, optionsJSON] = await Promise.all([
        loadPasskeyDialogs(),
        passkeySignInOptions(),
      ]);
      const response = await dialogs.startAuthentication({ optionsJSON });
      mutate(response, { onSuccess: goOn, onError: () => setAutofillRound((round) => round + 1) });
    } catch (error) {
      if (!isPasskeyDialogSuperseded(error)) toasts.error(passkeyDialogError(error).message);
      setAutofillRound((round) => round + 1);
    } finally {
      setIsDialogOpen(false);
    }
  };

  return (
    <Button
      variant="outlined"
      fullWidth
      onClick={signInWithPasskey}
      disabled={isDialogOpen || passkeyLogin.isPending}
    >
      <KeyIcon />
      {text('signInWithPasskey')}
    </Button>
  );
});
