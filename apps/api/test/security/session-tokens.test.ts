import { SignJWT } from 'jose';
import { afterEach, describe, expect, it, vi } from 'vitest';

import { deriveKey } from '../../src/security/keys';

import {
  ACCESS_TOKEN_TTL_SECONDS,
  createSessionTokens,
  InvalidTokenError,
} from '../../src/security/session-tokens';

const SECRET = 'a-token-secret-for-these-tests-that-is-long-enough';
const claims = { userId: 'user-1', sessionId: 'session-1' };

/** The token with one character of `part` (0 header, 1 payload, 2 signature) changed. */
function altered(token: string, part: number): string {
  const parts = token.split('.');
  const text = parts[part] ?? '';
  const index = Math.floor(text.length / 2);
  parts[part] = text.slice(0, index) + (text[index] === 'A' ? 'B' : 'A') + text.slice(index + 1);
  return parts.join('.');
}

describe('session tokens', () => {
  afterEach(() => {
    vi.useRealTimers();
  });

  it('verifies an access token again and again, and never one altered after it verified', async () => {
    const tokens = createSessionTokens(SECRET);
    const token = await tokens.issueAccessToken(claims);
    expect(await tokens.verifyAccessToken(token)).toEqual(claims);
    // Now remembered: the same answer, and still nothing for a token that differs from it.
    expect(await tokens.verifyAccessToken(token)).toEqual(claims);
    for (const part of [0, 1, 2]) {
      await expect(tokens.verifyAccessToken(altered(token, part))).rejects.toBeInstanceOf(
        InvalidTokenError,
      );
    }
    // Another server secret never accepts it, remembered here or not.
    await expect(
      createSessionTokens(`${SECRET}-another`).verifyAccessToken(token),
    ).rejects.toBeInstanceOf(InvalidTokenError);
  });

  it('refuses a remembered access token once it has expired', async () => {
    vi.useFakeTimers({ toFake: ['Date'] });
    vi.setSystemTime(new Date('2026-11-24T12:00:00Z'));
    const tokens = createSessionTokens(SECRET);
    const token = await tokens.issueAccessToken(claims);
    expect(await tokens.verifyAccessToken(token)).toEqual(claims);

    vi.setSystemTime(new Date(Date.now() + (ACCESS_TOKEN_TTL_SECONDS - 1) * 1000));
    expect(await tokens.verifyAccessToken(token)).toEqual(claims);
    vi.setSystemTime(new Date(Date.now() + 1000));
    await expect(tokens.verifyAccessToken(token)).rejects.toBeInstanceOf(InvalidTokenError);
    await expect(tokens.verifyAccessToken(token)).rejects.toBeInstanceOf(InvalidTokenError);
  });

  it('never takes a refresh token for an access token, nor the reverse', async () => {
    const tokens = createSessionTokens(SECRET);
    const access = await tokens.issueAccessToken(claims);
    const { token: refresh } = await tokens.issueRefreshToken({
      sessionId: claims.sessionId,
      expiresAt: new Date(Date.now() + 60_000),
    });
    await expect(tokens.verifyAccessToken(refresh)).rejects.toBeInstanceOf(InvalidTokenError);
    expect(await tokens.verifyAccessToken(access)).toEqual(claims);
    await expect(tokens.verifyRefreshToken(access)).rejects.toBeInstanceOf(InvalidTokenError);
  });

  it('refuses to sign a refresh token whose expiry is not a date, as jose did', async () => {
    const tokens = createSessionTokens(SECRET);
    await expect(
      tokens.issueRefreshToken({ sessionId: claims.sessionId, expiresAt: new Date(Number.NaN) }),
    ).rejects.toThrow('valid expiry');
  });

  it('signs the very bytes jose signs, so any JWT library reads them as before', async () => {
    vi.useFakeTimers({ toFake: ['Date'] });
    vi.setSystemTime(new Date('2026-11-26T12:00:00.700Z'));
    const tokens = createSessionTokens(SECRET);
    const expiresAt = new Date('2026-12-26T12:00:00Z');
    const accessByJose = await new SignJWT({ sid: claims.sessionId, typ: 'access' })
      .setProtectedHeader({ alg: 'HS256', typ: 'JWT' })
      .setSubject(claims.userId)
      .setIssuer('kegel-coach')
      .setAudience('kegel-coach:access')
      .setIssuedAt()
      .setExpirationTime(`${ACCESS_TOKEN_TTL_SECONDS}s`)
      .sign(deriveKey(SECRET, 'access-token'));
    const refreshByJose = await new SignJWT({ sid: claims.sessionId, typ: 'refresh' })
      .setProtectedHeader({ alg: 'HS256', typ: 'JWT' })
      .setJti('the-secret')
      .setIssuer('kegel-coach')
      .setAudience('kegel-coach:refresh')
      .setExpirationTime(Math.floor(expiresAt.getTime() / 1000))
      .sign(deriveKey(SECRET, 'refresh-token'));

    expect(await tokens.issueAccessToken(claims)).toBe(accessByJose);
    const refresh = await tokens.issueRefreshToken({
      sessionId: claims.sessionId,
      expiresAt,
      secret: 'the-secret',
    });
    expect(refresh.token).toBe(refreshByJose);
    expect(await tokens.verifyRefreshToken(refresh.token)).toEqual({
      sessionId: claims.sessionId,
      secret: 'the-secret',
      expiresAt,
    });
  });
});
