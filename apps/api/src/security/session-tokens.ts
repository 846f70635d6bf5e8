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

/** Verified access tokens kept at most (about 4 MB): beyond, the oldest are forgotten first. */
const MAX_REMEMBERED_ACCESS_TOKENS = 10_000;

/** Access tokens that verified, by the whole token, with when each expires. */
type VerifiedAccessTokens = Map<string, { claims: AccessClaims; expiresAtMs: number }>;

export function createSessionTokens(tokenSecret: string): SessionTokens {
  // CryptoKeys imported once: given raw bytes (or a secret KeyObject, which it exports to bytes),
  // jose imports the HMAC key again on every sign and verify.
  const accessKey = importHmacKey(deriveKey(tokenSecret, 'access-token'));
  const refreshKey = importHmacKey(deriveKey(tokenSecret, 'refresh-token'));
  const rotationKey = deriveKey(tokenSecret, 'refresh-rotation');
  // Access tokens that verified, remembered until they expire. A member's app sends one token
  // with every call for its 15 minutes, and checking its HMAC again each time, through WebCrypto's
  // asynchronous job, was a fifth of the CPU of a signed-in call (npm run bench, PostgreSQL).
  // Keyed by the whole token, signature included: only a token that verified can be found here,
  // and a forged or altered one goes through the full check. Revocation is unaffected: every call
  // checks its session in the database (plugins/authenticate.ts).
  const verifiedAccessTokens: VerifiedAccessTokens = new Map();

  return {
    issueAccessToken: (claims) => issueAccessToken(accessKey, claims),
    verifyAccessToken: (token) => verifyAccessToken(accessKey, verifiedAccessTokens, token),
    issueRefreshToken: (claims) => issueRefreshToken(refreshKey, claims),
    verifyRefreshToken: (token) => verifyRefreshToken(refreshKey, token),
    successorSecret(secret) {
      return createHmac('sha256', rotationKey).update(secret).digest('base64url');
    },
  };
}

async function issueAccessToken(
  accessKey: Promise<webcrypto.CryptoKey>,
  { userId, sessionId }: AccessClaims,
): Promise<string> {
  return new SignJWT({ sid: sessionId, typ: 'access' })
    .setProtectedHeader({ alg: ALGORITHM, typ: 'JWT' })
    .setSubject(userId)
    .setIssuer(ISSUER)
    .setAudience(ACCESS_AUDIENCE)
    .setIssuedAt()
    .setExpirationTime(`${ACCESS_TOKEN_TTL_SECONDS}s`)
    .sign(await accessKey);
}

async function verifyAccessToken(
  accessKey: Promise<webcrypto.CryptoKey>,
  verifiedAccessTokens: VerifiedAccessTokens,
  token: string,
): Promise<AccessClaims> {
  const remembered = verifiedAccessTokens.get(token);
  if (remembered) {
    // jose's own rule: valid while now < exp.
    if (Date.now() < remembered.expiresAtMs) return remembered.claims;
    verifiedAccessTokens.delete(token);
  }
  let claims: AccessClaims;
  let expiresAtMs: number;
  try {
    const { payload } = await jwtVerify(token, await accessKey, {
      algorithms: [ALGORITHM],
      issuer: ISSUER,
      audience: ACCESS_AUDIENCE,
      requiredClaims: ['exp', 'sub', 'sid'],
    });
    if (
      payload.typ !== 'access' ||
      typeof payload.sid !== 'string' ||
      !payload.sub ||
      !payload.exp
    ) {
      throw new InvalidTokenError();
    }
    // Frozen: every later call with this token is handed this very object.
    claims = Object.freeze({ userId: payload.sub, sessionId: payload.sid });
    expiresAtMs = payload.exp * 1000;
  } catch {
    throw new InvalidTokenError();
  }
  if (verifiedAccessTokens.size >= MAX_REMEMBERED_ACCESS_TOKENS) {
    // A Map iterates in insertion order: its first key is the oldest.
    const oldest = verifiedAccessTokens.keys().next();
    if (!oldest.done) verifiedAccessTokens.delete(oldest.value);
  }
  verifiedAccessTokens.set(token, { claims, expiresAtMs });
  return claims;
}

async function issueRefreshToken(
  refreshKey: Promise<webcrypto.CryptoKey>,
  {
    sessionId,
    expiresAt,
    secret = randomSecret(),
  }: { sessionId: string; expiresAt: Date; secret?: string },
): Promise<{ token: string; secret: string }> {
  // No iat: the same (session, secret, expiry) always encodes to the same token string.
  const token = await new SignJWT({ sid: sessionId, typ: 'refresh' })
    .setProtectedHeader({ alg: ALGORITHM, typ: 'JWT' })
    .setJti(secret)
    .setIssuer(ISSUER)
    .setAudience(REFRESH_AUDIENCE)
    .setExpirationTime(Math.floor(expiresAt.getTime() / 1000))
    .sign(await refreshKey);
  return { token, secret };
}

async function verifyRefreshToken(
  refreshKey: Promise<webcrypto.CryptoKey>,
  token: string,
): Promise<RefreshClaims> {
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
}
