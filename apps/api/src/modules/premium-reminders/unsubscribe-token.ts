// The token of an unsubscribe link: who it is for and what it turns off, signed with a key of its
// own (HMAC-SHA256, keyed from TOKEN_SECRET). Whoever holds the mail may use it, without signing
// in (RFC 8058); nobody can make one for another member or another list. It does not expire:
// a reminder read weeks later must still be able to stop the next one.
import { createHmac, timingSafeEqual } from 'node:crypto';

/** What a link can turn off: the one kind of mail a member may stop so far. */
export type MailingList = 'expiry-reminders';
const LISTS: readonly MailingList[] = ['expiry-reminders'];

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

function signatureOf(key: Buffer, userId: string, list: MailingList): string {
  return createHmac('sha256', key).update(`${userId}.${list}`).digest('base64url');
}

/** `<user id>.<list>.<signature>`: URL-safe as it is. */
export function signUnsubscribeToken(key: Buffer, userId: string, list: MailingList): string {
  return `${userId}.${list}.${signatureOf(key, userId, list)}`;
}

/** The member and list a token names, or undefined when it is malformed or not ours. */
export function readUnsubscribeToken(
  key: Buffer,
  token: string,
): { userId: string; list: MailingList } | undefined {
  const [userId, list, signature, ...rest] = token.split('.');
  if (rest.length > 0 || !userId || !UUID.test(userId) || !signature) return undefined;
  const known = LISTS.find((name) => name === list);
  if (!known) return undefined;
  // Compared as text, not as decoded bytes: base64url's last character has bits that decoding
  // ignores, and a token changed there must not pass.
  const expected = Buffer.from(signatureOf(key, userId, known));
  const given = Buffer.from(signature);
  if (given.length !== expected.length || !timingSafeEqual(given, expected)) return undefined;
  return { userId, list: known };
}
