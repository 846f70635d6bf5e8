// Verifies OpenID Connect ID tokens of one provider (Google, Apple): signature with the
// provider's published keys (chosen by `kid`), `iss`, `aud` and `exp` with no leeway, and, for a
// token with several audiences, an authorized party (`azp`) that is us; the nonce is handed back
// for the caller to judge. Only RS256, the algorithm both providers sign with:
// `alg: none` and an HMAC "signed" with the public key are refused before any key is looked at.
//
// Keys are fetched once and cached; a token with an unknown `kid` (a key rotation) refetches the
// set at most once a minute, so a flood of made-up `kid`s cannot turn into a flood of fetches.
import { createRemoteJWKSet, errors as joseErrors, jwtVerify } from 'jose';

export interface VerifiedIdentity {
  subject: string;
  email: string | null;
  emailVerified: boolean;
  /** Google's `hd`: the Workspace domain of a company account, whose addresses Google runs. */
  hostedDomain: string | null;
  nonce: string | null;
}

export interface IdTokenVerifier {
  verify(idToken: string): Promise<VerifiedIdentity>;
}

/** The token is bad (401), as opposed to the provider being out of reach (503). */
export class InvalidIdTokenError extends Error {
  constructor(reason: string) {
    super(reason);
    this.name = 'InvalidIdTokenError';
  }
}

export const KEY_REFETCH_COOLDOWN_MS = 60_000;

export function createIdTokenVerifier(options: {
  jwksUrl: string | (() => Promise<string>);
  /** Accepted `iss` values, compared exactly (a trailing slash is another issuer). */
  issuers: string[];
  /** Our client id, or several (Apple: the web's Services ID and the iOS app's bundle id). */
  audience: string | string[];
}): IdTokenVerifier {
  const audiences = Array.isArray(options.audience) ? options.audience : [options.audience];
  let keySet: ReturnType<typeof createRemoteJWKSet> | undefined;
  async function keys(): Promise<ReturnType<typeof createRemoteJWKSet>> {
    if (!keySet) {
      const url = typeof options.jwksUrl === 'string' ? options.jwksUrl : await options.jwksUrl();
      keySet ??= createRemoteJWKSet(new URL(url), {
        cooldownDuration: KEY_REFETCH_COOLDOWN_MS,
        timeoutDuration: 5_000,
      });
    }
    return keySet;
  }

  return {
    async verify(idToken) {
      const keyResolver = await keys();
      let payload;
      try {
        ({ payload } = await jwtVerify(idToken, keyResolver, {
          algorithms: ['RS256'],
          issuer: options.issuers,
          audience: audiences,
          requiredClaims: ['sub', 'exp', 'iat'],
          clockTolerance: 0,
        }));
      } catch (error) {
        if (isKeySetUnreachable(error)) throw error;
        throw new InvalidIdTokenError((error as Error).message);
      }
      if (typeof payload.sub !== 'string' || payload.sub.length === 0) {
        throw new InvalidIdTokenError('no subject');
      }
      // A token for several clients at once was issued to whichever of them `azp` names (OpenID
      // Connect Core, 3.1.3.7): without it, another client's token that merely lists us would
      // sign its holder in here.
      if (
        Array.isArray(payload.aud) &&
        payload.aud.length > 1 &&
        !audiences.includes(String(payload.azp))
      ) {
        throw new InvalidIdTokenError('several audiences, and the authorized party is not us');
      }
      const email = typeof payload.email === 'string' ? payload.email.trim() : '';
      return {
        subject: payload.sub,
        email: email || null,
        // Apple sends "true" as a string, Google a boolean.
        emailVerified: payload.email_verified === true || payload.email_verified === 'true',
        hostedDomain: typeof payload.hd === 'string' && payload.hd !== '' ? payload.hd : null,
        nonce: typeof payload.nonce === 'string' ? payload.nonce : null,
      };
    },
  };
}

/** The provider's key set could not be fetched: not the token's fault. */
export function isKeySetUnreachable(error: unknown): boolean {
  if (error instanceof joseErrors.JWKSTimeout || error instanceof joseErrors.JWKSInvalid) {
    return true;
  }
  // A non-200 answer is jose's generic error; a refused connection is fetch's own TypeError.
  if (error instanceof joseErrors.JOSEError) return error.code === 'ERR_JOSE_GENERIC';
  return !(error instanceof InvalidIdTokenError);
}
