// The two tokens of a sign-in session, both JWTs so the web app can read their `exp` and renew an
// expired access token before its next call (docs/decisions/003-session-tokens-and-rotation.md).
//
// - Access token: `{ sub, sid, typ: 'access' }`, 15 minutes, HS256 with the access key.
// - Refresh token: `{ sid, jti, typ: 'refresh' }`, expiring with its session (30 days from
//   sign-in), HS256 with the refresh key. `jti` is 256 random bits; the database keeps only its
//   SHA-256.
//
// Different keys, audiences and `typ` claims: a refresh token never verifies as an access token,
// nor the reverse. The algorithm is pinned to HS256 on verification (no `alg: none`, no swap).
//
// Rotation: a successor's `jti` is HMAC(rotation key, predecessor's `jti`). The same refresh
// token presented twice (two tabs at once) therefore yields the very same successor, without the
// server ever storing a token it could leak.
import { createHmac, webcrypto } from 'node:crypto';

import { jwtVerify, SignJWT } from 'jose';

import { deriveKey, randomSecret } from './keys';

export const ACCESS_TOKEN_TTL_SECONDS = 15 * 60;
const ISSUER = 'kegel-coach';
const ACCESS_AUDIENCE = 'kegel-coach:access';
const REFRESH_AUDIENCE = 'kegel-coach:refresh';
const ALGORITHM = 'HS256';

export interface AccessClaims {
  userId: string;
  sessionId: string;
}

export interface RefreshClaims {
  sessionId: string;
  secret: string;
  expiresAt: Date;
}

export class InvalidTokenError extends Error {
  readonly statusCode = 401;
  constructor(message = 'Invalid or expired token') {
    super(message);
    this.name = 'InvalidTokenError';
  }
}

export interface SessionTokens {
  issueAccessToken(claims: AccessClaims): Promise<string>;
  verifyAccessToken(token: string): Promise<AccessClaims>;
  /** A refresh token for a session; `secret` defaults to a fresh random one. */
  issueRefreshToken(claims: {
    sessionId: string;
    expiresAt: Date;
    secret?: string;
  }): Promise<{ token: string; secret: string }>;
  verifyRefreshToken(token: string): Promise<RefreshClaims>;
  successorSecret(secret: string): string;
}

function importHmacKey(key: Buffer): Promise<webcrypto.CryptoKey> {
  return webcrypto.subtle.importKey('raw', key, { name: 'HMAC', hash: 'SHA-256' }, false, [
    'sign',
    'verify',
  ]);
}

export function createSessionTokens(tokenSecret: string): SessionTokens {
  // CryptoKeys imported once: given raw bytes (or a secret KeyObject, which it exports to bytes),
  // jose imports the HMAC key again on every sign and verify.
  const accessKey = importHmacKey(deriveKey(tokenSecret, 'access-token'));
  const refreshKey = importHmacKey(deriveKey(tokenSecret, 'refresh-token'));
  const rotationKey = deriveKey(tokenSecret, 'refresh-rotation');

  return {
    async issueAccessToken({ userId, sessionId }) {
      return new SignJWT({ sid: sessionId, typ: 'access' })
        .setProtectedHeader({ alg: ALGORITHM, typ: 'JWT' })
        .setSubject(userId)
        .setIssuer(ISSUER)
        .setAudience(ACCESS_AUDIENCE)
        .setIssuedAt()
        .setExpirationTime(`${ACCESS_TOKEN_TTL_SECONDS}s`)
        .sign(await accessKey);
    },

    async verifyAccessToken(token) {
      try {
        const { payload } = await jwtVerify(token, await accessKey, {
          algorithms: [ALGORITHM],
          issuer: ISSUER,
          audience: ACCESS_AUDIENCE,
          requiredClaims: ['exp', 'sub', 'sid'],
        });
        if (payload.typ !== 'access' || typeof payload.sid !== 'string' || !payload.sub) {
          throw new InvalidTokenError();
        }
        return { userId: payload.sub, sessionId: payload.sid };
      } catch {
        throw new InvalidTokenError();
      }
    },

    async issueRefreshToken({ sessionId, expiresAt, secret = randomSecret() }) {
      // No iat: the same (session, secret, expiry) always encodes to the same token string.
      const token = await new SignJWT({ sid: sessionId, typ: 'refresh' })
        .setProtectedHeader({ alg: ALGORITHM, typ: 'JWT' })
        .setJti(secret)
        .setIssuer(ISSUER)
        .setAudience(REFRESH_AUDIENCE)
        .setExpirationTime(Math.floor(expiresAt.getTime() / 1000))
        .sign(await refreshKey);
      return { token, secret };
    },

    async verifyRefreshToken(token) {
      try {
        const { payload } = await jwtVerify(token, await refreshKey, {
          algorithms: [ALGORITHM],
          issuer: ISSUER,
          audience: REFRESH_AUDIENCE,
          requiredClaims: ['exp', 'jti', 'sid'],
        });
        if (
          payload.typ !== 'refresh' ||
          typeof payload.sid !== 'string' ||
          !payload.jti ||
          !payload.exp
        ) {
          throw new InvalidTokenError();
        }
        return {
          sessionId: payload.sid,
          secret: payload.jti,
          expiresAt: new Date(payload.exp * 1000),
        };
      } catch {
        throw new InvalidTokenError();
      }
    },

    successorSecret(secret) {
      return createHmac('sha256', rotationKey).update(secret).digest('base64url');
    },
  };
}
