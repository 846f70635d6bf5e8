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

import { jwtVerify } from 'jose';

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
  const accessKeyBytes = deriveKey(tokenSecret, 'access-token');
  const refreshKeyBytes = deriveKey(tokenSecret, 'refresh-token');
  const accessKey = importHmacKey(accessKeyBytes);
  const refreshKey = importHmacKey(refreshKeyBytes);
  const rotationKey = deriveKey(tokenSecret, 'refresh-rotation');
  // Access tokens that verified, remembered until they expire. A member's app sends one token
  // with every call for its 15 minutes, and checking its HMAC again each time, through WebCrypto's
  // asynchronous job, was a fifth of the CPU of a signed-in call (npm run bench, PostgreSQL).
  // Keyed by the whole token, signature included: only a token that verified can be found here,
  // and a forged or altered one goes through the full check. Revocation is unaffected: every call
  // checks its session in the database (plugins/authenticate.ts).
  const verifiedAccessTokens: VerifiedAccessTokens = new Map();

  return {
    issueAccessToken: async (claims) => issueAccessToken(accessKeyBytes, claims),
    verifyAccessToken: (token) => verifyAccessToken(accessKey, verifiedAccessTokens, token),
    issueRefreshToken: async (claims) => issueRefreshToken(refreshKeyBytes, claims),
    verifyRefreshToken: (token) => verifyRefreshToken(refreshKey, token),
    successorSecret(secret) {
      return createHmac('sha256', rotationKey).update(secret).digest('base64url');
    },
  };
}

/** The header of every token: HS256, and `typ` as jose's SignJWT wrote it. */
const ENCODED_HEADER = Buffer.from(JSON.stringify({ alg: ALGORITHM, typ: 'JWT' })).toString(
  'base64url',
);

/**
 * A compact JWS (HS256) of `payload`, signed in this thread with node:crypto's HMAC. Tokens are
 * signed on every sign-in and renewal; through WebCrypto (jose's SignJWT) each signature was an
 * asynchronous job of its own, about half a millisecond of the event loop per token on this
 * machine (npm run bench, issue 30). The bytes are jose's exactly (a test compares them), and
 * jose still verifies every token.
 */
function signHs256(key: Buffer, payload: Record<string, unknown>): string {
  const signingInput = `${ENCODED_HEADER}.${Buffer.from(JSON.stringify(payload)).toString('base64url')}`;
  return `${signingInput}.${createHmac('sha256', key).update(signingInput).digest('base64url')}`;
}

function issueAccessToken(accessKey: Buffer, { userId, sessionId }: AccessClaims): string {
  const issuedAt = Math.floor(Date.now() / 1000);
  // The claims in the order jose's SignJWT wrote them.
  return signHs256(accessKey, {
    sid: sessionId,
    typ: 'access',
    sub: userId,
    iss: ISSUER,
    aud: ACCESS_AUDIENCE,
    iat: issuedAt,
    exp: issuedAt + ACCESS_TOKEN_TTL_SECONDS,
  });
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

function issueRefreshToken(
  refreshKey: Buffer,
  {
    sessionId,
    expiresAt,
    secret = randomSecret(),
  }: { sessionId: string; expiresAt: Date; secret?: string },
): { token: string; secret: string } {
  // jose refused an expiry that is not a date; JSON would write it as null.
  if (!Number.isFinite(expiresAt.getTime())) {
    throw new TypeError('A refresh token needs a valid expiry');
  }
  // No iat: the same (session, secret, expiry) always encodes to the same token string.
  const token = signHs256(refreshKey, {
    sid: sessionId,
    typ: 'refresh',
    jti: secret,
    iss: ISSUER,
    aud: REFRESH_AUDIENCE,
    exp: Math.floor(expiresAt.getTime() / 1000),
  });
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
