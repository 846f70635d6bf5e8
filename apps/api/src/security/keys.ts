// One configured secret (TOKEN_SECRET), several independent keys: each use derives its own with
// HMAC-SHA256 over a fixed label, so a key of one kind can never verify or open the other kind.
import { createCipheriv, createDecipheriv, createHash, createHmac, randomBytes } from 'node:crypto';

export type KeyPurpose =
  | 'access-token'
  | 'refresh-token'
  | 'refresh-rotation'
  | 'outbox-encryption'
  | 'sign-in-nonce'
  | 'rate-limit-keys'
  | 'two-step-secret'
  | 'audit-email'
  | 'unsubscribe-link';

export function deriveKey(secret: string, purpose: KeyPurpose): Buffer {
  return createHmac('sha256', secret).update(`kegel-coach:${purpose}`).digest();
}

/** A random secret for tokens and codes: 32 bytes (256 bits), URL-safe. */
export function randomSecret(): string {
  return randomBytes(32).toString('base64url');
}

/** What the database keeps of a secret: its SHA-256, hex. Enough for 256-bit random inputs. */
export function hashSecret(secret: string): string {
  return createHash('sha256').update(secret).digest('hex');
}

/** AES-256-GCM: iv (12) | tag (16) | ciphertext, base64url. */
export function seal(key: Buffer, plaintext: string): string {
  const iv = randomBytes(12);
  const cipher = createCipheriv('aes-256-gcm', key, iv);
  const ciphertext = Buffer.concat([cipher.update(plaintext, 'utf8'), cipher.final()]);
  return Buffer.concat([iv, cipher.getAuthTag(), ciphertext]).toString('base64url');
}

export function unseal(key: Buffer, sealed: string): string {
  const bytes = Buffer.from(sealed, 'base64url');
  const decipher = createDecipheriv('aes-256-gcm', key, bytes.subarray(0, 12));
  decipher.setAuthTag(bytes.subarray(12, 28));
  return Buffer.concat([decipher.update(bytes.subarray(28)), decipher.final()]).toString('utf8');
}
