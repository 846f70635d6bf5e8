import { randomInt } from 'node:crypto';

/** Letters and digits that cannot be mistaken for one another when read from an email. */
const ALPHABET = 'ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz23456789';

/** The password emailed to an account that a purchase created: 20 characters, ~116 bits. */
export function generatePassword(length = 20): string {
  return Array.from({ length }, () => ALPHABET[randomInt(ALPHABET.length)]).join('');
}
