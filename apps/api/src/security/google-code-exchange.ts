// Google's half of the authorization-code flow (docs/decisions/005-social-sign-in.md): the web
// app's popup (Google Identity Services' code client) hands us a code; we exchange it at the
// token endpoint, discovered from the configured issuer, with our client secret, using the
// certified `openid-client`.
//
// The popup flow has no redirect URL: Google expects the literal `redirect_uri=postmessage` in
// the exchange, which openid-client cannot derive from a callback URL, so it is set on the way
// out (openid-client's documented customFetch hook).
//
// openid-client is loaded with the first Google sign-in, not at start: a server that idles, or
// has no Google client configured, does not carry it (test/production-modules.test.ts).
import type * as OpenIdClient from 'openid-client';

export interface GoogleCodeExchange {
  /** The ID token of the code's sign-in; throws if Google refuses the code. */
  exchange(code: string): Promise<string>;
  /** Where Google publishes its keys, from discovery. */
  jwksUrl(): Promise<string>;
}

/** Google's discovery or token endpoint did not answer: not the caller's fault. */
export class ProviderUnavailableError extends Error {
  constructor(cause: unknown) {
    super('The sign-in provider could not be reached', { cause });
    this.name = 'ProviderUnavailableError';
  }
}

/** The code was refused (unknown, used before, or for another client). */
export class CodeRefusedError extends Error {
  constructor(reason: string) {
    super(reason);
    this.name = 'CodeRefusedError';
  }
}

const POPUP_REDIRECT_URI = 'postmessage';

/** openid-client's codes for "no proper answer came back", as opposed to "the answer says no". */
const UNREACHABLE_CODES = new Set([
  'OAUTH_TIMEOUT',
  'OAUTH_ABORT',
  'OAUTH_RESPONSE_IS_NOT_CONFORM',
  'OAUTH_RESPONSE_IS_NOT_JSON',
]);

/** openid-client, and the issuer's configuration it discovered. */
interface Discovered {
  oidc: typeof OpenIdClient;
  config: OpenIdClient.Configuration;
}

export function createGoogleCodeExchange(options: {
  issuer: string;
  clientId: string;
  clientSecret: string;
}): GoogleCodeExchange {
  let configuration: Promise<Discovered> | undefined;

  /** Discovered once; a failed discovery is tried again on the next sign-in. */
  function discover(): Promise<Discovered> {
    configuration ??= import('openid-client')
      .then(async (oidc) => {
        const discovered = await oidc.discovery(
          new URL(options.issuer),
          options.clientId,
          undefined,
          oidc.ClientSecretBasic(options.clientSecret),
          // Plain http only for the local identity sandbox on loopback; Google is https.
          { execute: options.issuer.startsWith('http://') ? [oidc.allowInsecureRequests] : [] },
        );
        discovered[oidc.customFetch] = (url, init) => {
          if (
            init.body instanceof URLSearchParams &&
            init.body.get('grant_type') === 'authorization_code'
          ) {
            init.body.set('redirect_uri', POPUP_REDIRECT_URI);
          }
          return fetch(url, init);
        };
        return { oidc, config: discovered };
      })
      .catch((error: unknown) => {
        configuration = undefined;
        throw new ProviderUnavailableError(error);
      });
    return configuration;
  }

  return {
    async exchange(code) {
      const { oidc, config } = await discover();
      const callback = new URL('https://popup.invalid/');
      callback.searchParams.set('code', code);
      try {
        const tokens = await oidc.authorizationCodeGrant(config, callback, {
          // The state was checked in the browser, which the popup answered.
          expectedState: oidc.skipStateCheck,
          idTokenExpected: true,
        });
        if (!tokens.id_token) throw new CodeRefusedError('no ID token in the answer');
        return tokens.id_token;
      } catch (error) {
        if (error instanceof CodeRefusedError) throw error;
        if (error instanceof oidc.ResponseBodyError) {
          // invalid_grant: unknown, expired or already used code. Anything else (invalid_client)
          // is our configuration, not the caller's.
          if (error.error === 'invalid_grant') throw new CodeRefusedError(error.error);
          throw new ProviderUnavailableError(error);
        }
        // Timeouts and answers that are not OAuth answers (a 502 page) are Google being down.
        if (error instanceof oidc.ClientError && error.code && UNREACHABLE_CODES.has(error.code)) {
          throw new ProviderUnavailableError(error);
        }
        if (error instanceof oidc.ClientError || error instanceof oidc.AuthorizationResponseError) {
          throw new CodeRefusedError(error.message);
        }
        throw new ProviderUnavailableError(error);
      }
    },
    async jwksUrl() {
      const jwksUri = (await discover()).config.serverMetadata().jwks_uri;
      if (!jwksUri) throw new ProviderUnavailableError(new Error('no jwks_uri in discovery'));
      return jwksUri;
    },
  };
}
