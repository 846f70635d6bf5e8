// Refuses the passwords people choose most often, offline, on every way a password is set
// (registration, reset, change). The server is the authority: the list never ships to the web
// app. Why this list: docs/decisions/008-common-passwords.md.
//
// The list is the `passwords-common` dictionary of @zxcvbn-ts/language-common (MIT, maintained
// with zxcvbn-ts): the passwords seen more than ten times among ten million leaked ones, most
// used first, lower-cased. Its generator drops the ones zxcvbn finds by pattern instead (a
// repeated character or block, a straight run such as 'abcdefgh' or '87654321'), so those two
// patterns are refused here as well; keyboard walks ('qwertyuiop', '1qaz2wsx') are in the list.
import { fieldMessages, PASSWORD_MIN_LENGTH } from '@kegel/contract';

import { AppError } from '../errors';

/** Case and Unicode compatibility forms ('ｐａｓｓｗｏｒｄ') do not make a password less common. */
function comparable(password: string): string {
  return password.normalize('NFKC').toLowerCase();
}

let building: Promise<ReadonlySet<string>> | undefined;

/**
 * Built once, with the first password checked (about 30 ms on a 2-core machine), from the
 * entries that pass the length rule: shorter ones never get this far. Not at start: the
 * dictionaries and the set weigh some 5 MB of heap, which a server that sets no password would
 * carry for nothing.
 */
function commonPasswords(): Promise<ReadonlySet<string>> {
  building ??= import('@zxcvbn-ts/language-common').then(
    ({ dictionary }) =>
      new Set(
        dictionary['passwords-common']
          .map(comparable)
          .filter((candidate) => candidate.length >= PASSWORD_MIN_LENGTH),
      ),
  );
  return building;
}

/** 'aaaaaaaa', 'abababab', '123123123', '12341234': one block of up to four characters, again and again. */
function isRepeatedBlock(password: string): boolean {
  for (let size = 1; size <= 4 && size * 2 <= password.length; size += 1) {
    if (password.length % size !== 0) continue;
    if (password.slice(0, size).repeat(password.length / size) === password) return true;
  }
  return false;
}

/** 'abcdefgh', '23456789', '87654321': each character the one after (or before) the previous. */
function isStraightRun(password: string): boolean {
  const step = password.charCodeAt(1) - password.charCodeAt(0);
  if (step !== 1 && step !== -1) return false;
  for (let index = 2; index < password.length; index += 1) {
    if (password.charCodeAt(index) - password.charCodeAt(index - 1) !== step) return false;
  }
  return true;
}

export async function isCommonPassword(password: string): Promise<boolean> {
  const candidate = comparable(password);
  return (
    (await commonPasswords()).has(candidate) ||
    isRepeatedBlock(candidate) ||
    isStraightRun(candidate)
  );
}

/** Throws the field message the web forms show under the new password (400). */
export async function assertNotCommonPassword(password: string): Promise<void> {
  if (await isCommonPassword(password)) {
    throw new AppError(400, fieldMessages.passwordTooCommon);
  }
}
