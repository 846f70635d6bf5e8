import { socialMessages } from '@kegel/contract';
import { useQuery } from '@tanstack/react-query';
import { memo, useEffect, useState } from 'react';

import { loadScript } from '../../../shared/browser/load-script';
import '../../../shared/i18n/contract-messages';
import { localizeMessage } from '../../../shared/i18n/i18n';
import { Button } from '../../../shared/ui/button';
import { AppleIcon, GoogleIcon } from '../../../shared/ui/icons/icon-set';
import { toasts } from '../../../shared/ui/toasts';
import { socialQueries, useAppleLogin, useGoogleLogin } from '../api';
import { useAuthText } from '../text';
import { useAfterFirstStep } from '../use-code-step';
import styles from '../components/auth-form.module.css';
import { requestAppleIdentityToken, requestGoogleCode, SignInCancelled } from './provider-flows';

/**
 * The 'or' divider and 'Continue with Google' / 'Continue with Apple', on the login and register
 * pages. Each runs its provider's own popup (or the local identity sandbox's stand-in, whichever
 * script the server names), then hands the result to our API.
 *
 * Memoised (it takes no props): the form beside it draws again as soon as it runs, and this need
 * not (issue 30).
 */
export const SocialSignIn = memo(function SocialSignIn(): React.JSX.Element | null {
  const text = useAuthText();
  const providers = useQuery(socialQueries.providers());
  const googleLogin = useGoogleLogin();
  const appleLogin = useAppleLogin();
  const afterFirstStep = useAfterFirstStep();
  const [isPopupOpen, setIsPopupOpen] = useState(false);
  const busy = isPopupOpen || googleLogin.isPending || appleLogin.isPending;
  const google = providers.data?.google;
  const apple = providers.data?.apple;
  const appleNonce = useQuery({ ...socialQueries.appleNonce(), enabled: !!apple });

  // Loaded ahead: a popup is allowed only while the click is being handled, not after a load.
  useEffect(() => {
    if (google) loadScript(google.scriptUrl).catch(() => undefined);
    if (apple) loadScript(apple.scriptUrl).catch(() => undefined);
  }, [google, apple]);

  // Nothing to offer (both off, or the settings could not be read): no divider either.
  if (providers.isError || (providers.isSuccess && !google && !apple)) return null;

  /**
   * The provider's own popup, before any call of ours: closing it is not an error worth a red
   * toast, and its failures are told as toasts here. Resolves with what it handed back, if
   * anything.
   */
  async function inProviderPopup<Result>(popup: () => Promise<Result>): Promise<Result | null> {
    setIsPopupOpen(true);
    try {
      return await popup();
    } catch (error) {
      // Ours are in the page's language already; the contract's (socialMessages) are put in it.
      const message = localizeMessage((error as Error).message);
      if (error instanceof SignInCancelled) toasts.info(message);
      else toasts.error(message);
      return null;
    } finally {
      setIsPopupOpen(false);
    }
  }

  const continueWithGoogle = async () => {
    const code = await inProviderPopup(() => {
      if (!google) throw new Error(socialMessages.googleOff);
      return requestGoogleCode(google);
    });
    if (code) googleLogin.mutate(code, { onSuccess: afterFirstStep });
  };

  const continueWithApple = async () => {
    const nonce = appleNonce.data?.nonce;
    const request = await inProviderPopup(() => {
      if (!apple) throw new Error(socialMessages.appleOff);
      if (!nonce) throw new Error(text('appleStillLoading'));
      return requestAppleIdentityToken(apple, nonce);
    });
    if (request) appleLogin.mutate(request, { onSuccess: afterFirstStep });
    // Each nonce works once: have the next one ready.
    void appleNonce.refetch();
  };

  return (
    <div className={styles.social}>
      <p className={styles.divider}>
        <span>{text('or')}</span>
      </p>
      {providers.isPending || google ? (
        <Button
          variant="outlined"
          fullWidth
          onClick={continueWithGoogle}
          disabled={!google || busy}
        >
          <GoogleIcon />
          {text('continueWithGoogle')}
        </Button>
      ) : null}
      {providers.isPending || apple ? (
        <Button variant="outlined" fullWidth onClick={continueWithApple} disabled={!apple || busy}>
          <AppleIcon />
          {text('continueWithApple')}
        </Button>
      ) : null}
    </div>
  );
});
