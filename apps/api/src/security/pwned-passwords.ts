// Asks Have I Been Pwned's Pwned Passwords range API whether a new password appears in a known
// breach, by k-anonymity: only the first 5 hex digits of its SHA-1 leave the server, and the
// answer lists every breached suffix under that prefix (padded, so its size tells nothing).
//
// It must never stand between a person and their account: a slow, failing or unreachable
// service answers "not known to be breached" after a short timeout, and is logged.
import { createHash } from 'node:crypto';

export interface PwnedPasswords {
  /** True only when the service answered and lists the password; false on any doubt. */
  isBreached(password: string): Promise<boolean>;
}

export interface PwnedPasswordsOptions {
  /** The API's base URL: `https://api.pwnedpasswords.com` (its `/range/{prefix}` is asked). */
  url: string;
  /** How long a registration may wait for the answer before going on without it. */
  timeoutMs: number;
  /** Told when the service could not answer; the password is then taken. */
  onUnavailable: (reason: string) => void;
}

export function createPwnedPasswords(options: PwnedPasswordsOptions): PwnedPasswords {
  return {
    async isBreached(password) {
      const hash = createHash('sha1').update(password, 'utf8').digest('hex').toUpperCase();
      const prefix = hash.slice(0, 5);
      const suffix = hash.slice(5);
      let body: string;
      try {
        const response = await fetch(`${options.url}/range/${prefix}`, {
          headers: { 'add-padding': 'true', 'user-agent': 'kegel-coach' },
          signal: AbortSignal.timeout(options.timeoutMs),
        });
        if (!response.ok) {
          options.onUnavailable(`answered ${response.status}`);
          return false;
        }
        body = await response.text();
      } catch (error) {
        options.onUnavailable(
          (error as Error).name === 'TimeoutError' ? 'timed out' : String(error),
        );
        return false;
      }
      return body.split('\n').some((line) => {
        const [lineSuffix, count] = line.trim().split(':');
        // Padding lines have a count of 0.
        return lineSuffix === suffix && Number(count) > 0;
      });
    },
  };
}

/** Stands in when the check is off (outside production, or PWNED_PASSWORDS=off). */
export const pwnedPasswordsOff: PwnedPasswords = {
  async isBreached() {
    return false;
  },
};
