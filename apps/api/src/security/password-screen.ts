// What a new password must pass beyond its length, wherever one is set (registration, reset,
// change): never one of the most common (offline, always: common-passwords.ts), and, where the
// Pwned Passwords check is on, never one found in a breach (pwned-passwords.ts).
import { fieldMessages } from '@kegel/contract';

import { AppError } from '../errors';
import { assertNotCommonPassword } from './common-passwords';
import type { PwnedPasswords } from './pwned-passwords';

export interface PasswordScreen {
  /** Throws the field message (400) the web forms show under the new password. */
  assertAcceptable(password: string): Promise<void>;
}

export function createPasswordScreen(pwned: PwnedPasswords): PasswordScreen {
  return {
    async assertAcceptable(password) {
      await assertNotCommonPassword(password);
      if (await pwned.isBreached(password)) {
        throw new AppError(400, fieldMessages.passwordBreached);
      }
    },
  };
}
