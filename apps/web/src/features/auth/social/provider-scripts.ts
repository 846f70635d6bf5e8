/**
 * The two providers' browser APIs this app uses, as their documentation describes them (and as
 * the local identity sandbox's stand-ins implement them):
 * - Google Identity Services, authorization-code model with a popup
 *   (`google.accounts.oauth2.initCodeClient`);
 * - Sign in with Apple JS (`AppleID.auth.init` + `AppleID.auth.signIn` with `usePopup`).
 */
export interface GoogleCodeResponse {
  code?: string;
  scope?: string;
  state?: string;
  error?: string;
  error_description?: string;
}

export interface GoogleCodeClientConfig {
  client_id: string;
  scope: string;
  ux_mode: 'popup';
  state: string;
  callback: (response: GoogleCodeResponse) => void;
  error_callback?: (error: { type: string; message?: string }) => void;
}

export interface AppleSignInResponse {
  authorization: { code: string; id_token: string; state?: string };
  user?: { email?: string };
}

declare global {
  interface Window {
    google?: {
      accounts?: {
        oauth2?: { initCodeClient(config: GoogleCodeClientConfig): { requestCode(): void } };
      };
    };
    AppleID?: {
      auth: {
        init(config: {
          clientId: string;
          scope: string;
          redirectURI: string;
          state: string;
          nonce: string;
          usePopup: boolean;
        }): void;
        signIn(): Promise<AppleSignInResponse>;
      };
    };
  }
}

/** 256 random bits, URL-safe: for `state` and `nonce`. */
export function randomToken(): string {
  const bytes = crypto.getRandomValues(new Uint8Array(32));
  return btoa(String.fromCharCode(...bytes))
    .replace(/\+/g, '-')
    .replace(/\//g, '_')
    .replace(/=+$/, '');
}
