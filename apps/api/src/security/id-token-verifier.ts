import { createHash } from 'node:crypto';

import { createRemoteJWKSet, errors as joseErrors, jwtVerify } from 'jose';

/**
 * Verifies OpenID Connect ID tokens of one provider (Google, Apple): signature with the
 * provider's published keys (chosen by `kid`), `iss`, `aud`, `exp` with no leeway, and the nonce
 * where one was sent. Only RS256, the algorithm both providers sign with: `alg: none` and an
 * HMAC "signed" with the public key are refused before any key is looked at.
 *
 * Keys are fetched once and cached; a token with an unknown `kid` (a key rotation) refetches the
 * set at most once a minute, so a flood of made-up `kid`s cannot turn into a flood of fetches.
 */
export interface VerifiedIdentity {
  subject: string;
  email: string | null;
  emailVerified: boolean;
}

export interface IdTokenVerifier {
  verify(idToken: string, options?: { nonce?: string }): Promise<VerifiedIdentity>;
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
  audience: string;
}): IdTokenVerifier {
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
    async verify(idToken, verifyOptions = {}) {
      const keyResolver = await keys();
      let payload;
      try {
        ({ payload } = await jwtVerify(idToken, keyResolver, {
          algorithms: ['RS256'],
          issuer: options.issuers,
          audience: options.audience,
          requiredClaims: ['sub', 'exp', 'iat'],
          clockTolerance: 0,
        }));
      } catch (error) {
        if (isKeySetUnreachable(error)) throw error;
        throw new InvalidIdTokenError((error as Error).message);
      }
      if (verifyOptions.nonce !== undefined && !nonceMatches(payload.nonce, verifyOptions.nonce)) {
        throw new InvalidIdTokenError('nonce mismatch');
      }
      if (typeof payload.sub !== 'string' || payload.sub.length === 0) {
        throw new InvalidIdTokenError('no subject');
      }
      const email = typeof payload.email === 'string' ? payload.email.trim() : '';
      return {
        subject: payload.sub,
        email: email || null,
        // Apple sends "true" as a string, Google a boolean.
        emailVerified: payload.email_verified === true || payload.email_verified === 'true',
      };
    },
  };
}

/**
 * The web sends the nonce it gave Apple as is; native apps give Apple its SHA-256 (hex), as
 * Apple's own guides do. Either form matches.
 */
function nonceMatches(claim: unknown, nonce: string): boolean {
  if (typeof claim !== 'string') return false;
  return claim === nonce || claim === createHash('sha256').update(nonce).digest('hex');
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
