// Nonces for Sign in with Apple: the server hands one out, the browser gives it to Apple, Apple
// signs it into the identity token, and the server takes the token only with a nonce it issued,
// unexpired and never used before. A token copied from somewhere else (a log, another site using
// the same Apple ID) then cannot be replayed here.
//
// Stateless until use: `random.expires.mac`, MAC'd with a key derived from TOKEN_SECRET, so any
// server process can check it; its single use is recorded in the database (social/repo.ts).
import { createHmac, timingSafeEqual } from 'node:crypto';

import { deriveKey, randomSecret } from './keys';

export const SIGN_IN_NONCE_LIFETIME_SECONDS = 10 * 60;

export interface SignInNonces {
  issue(now?: number): string;
  /** When the nonce expires (seconds), or undefined if it is not one of ours or has expired. */
  check(nonce: string, now?: number): number | undefined;
}

export function createSignInNonces(secret: string): SignInNonces {
  const key = deriveKey(secret, 'sign-in-nonce');
  const mac = (body: string): Buffer => createHmac('sha256', key).update(body).digest();

  return {
    issue(now = Date.now()) {
      const expires = Math.floor(now / 1000) + SIGN_IN_NONCE_LIFETIME_SECONDS;
      const body = `${randomSecret()}.${expires}`;
      return `${body}.${mac(body).toString('base64url')}`;
    },
    check(nonce, now = Date.now()) {
      const parts = nonce.split('.');
      if (parts.length !== 3) return undefined;
      const [random, expiresText, signature] = parts as [string, string, string];
      const given = Buffer.from(signature, 'base64url');
      const expected = mac(`${random}.${expiresText}`);
      if (given.length !== expected.length || !timingSafeEqual(given, expected)) return undefined;
      const expires = Number(expiresText);
      if (!Number.isInteger(expires) || expires <= Math.floor(now / 1000)) return undefined;
      return expires;
    },
  };
}
