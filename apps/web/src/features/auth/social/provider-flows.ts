import {
  type AppleVerifyTokenRequest,
  socialMessages,
  type SocialProvidersResponse,
} from '@kegel/contract';

import { loadScript, signInServiceNotLoaded } from '../../../shared/browser/load-script';
import { useAuthText } from '../text';
import { randomToken } from './provider-scripts';

// The errors' messages are what the person reads in a toast (social-sign-in.tsx), in the page's
// language; the contract's ones (socialMessages) are put in it there.

/** The person closed the provider's window or said no: not an error worth a red toast. */
export class SignInCancelled extends Error {}

type GoogleSettings = NonNullable<SocialProvidersResponse['google']>;
type AppleSettings = NonNullable<SocialProvidersResponse['apple']>;

/**
 * Google's authorization-code flow in a popup (scopes openid, profile and email), with a fresh
 * `state` that the answer must carry back. Resolves with the code for our API to exchange.
 */
export async function requestGoogleCode(settings: GoogleSettings): Promise<string> {
  await loadScript(settings.scriptUrl);
  const oauth2 = window.google?.accounts?.oauth2;
  if (!oauth2) throw new Error(signInServiceNotLoaded());
  const state = randomToken();
  return new Promise<string>((resolve, reject) => {
    oauth2
      .initCodeClient({
        client_id: settings.clientId,
        scope: 'openid profile email',
        ux_mode: 'popup',
        state,
        callback: (response) => {
          if (response.error === 'access_denied') {
            reject(new SignInCancelled(useAuthText.now('googleCancelled')));
          } else if (response.error || !response.code) {
            reject(new Error(response.error_description ?? socialMessages.googleRefused));
          } else if (response.state !== state) {
            // Not the answer to the request this page made: refuse it.
            reject(new Error(socialMessages.googleRefused));
          } else {
            resolve(response.code);
          }
        },
        error_callback: (error) => {
          reject(
            error.type === 'popup_closed'
              ? new SignInCancelled(useAuthText.now('googleClosed'))
              : new Error(useAuthText.now('googlePopupBlocked')),
          );
        },
      })
      .requestCode();
  });
}

/**
 * Sign in with Apple JS in a popup (the email scope, the login route as redirect), with
 * a fresh `state` checked here and the server's single-use `nonce`, which Apple signs into the
 * identity token and our API checks there.
 */
export async function requestAppleIdentityToken(
  settings: AppleSettings,
  nonce: string,
): Promise<AppleVerifyTokenRequest> {
  await loadScript(settings.scriptUrl);
  const appleId = window.AppleID;
  if (!appleId) throw new Error(signInServiceNotLoaded());
  const state = randomToken();
  appleId.auth.init({
    clientId: settings.clientId,
    scope: 'email',
    redirectURI: settings.redirectUri,
    state,
    nonce,
    usePopup: true,
  });
  let response;
  try {
    response = await appleId.auth.signIn();
  } catch (error) {
    const code = (error as { error?: string } | undefined)?.error;
    if (code === 'popup_closed_by_user' || code === 'user_cancelled_authorize') {
      throw new SignInCancelled(useAuthText.now('appleClosed'));
    }
    if (code === 'popup_blocked_by_browser') {
      throw new Error(useAuthText.now('applePopupBlocked'));
    }
    throw new Error(socialMessages.appleRefused);
  }
  if (response.authorization.state !== state || !response.authorization.id_token) {
    throw new Error(socialMessages.appleRefused);
  }
  return { token: response.authorization.id_token };
}
