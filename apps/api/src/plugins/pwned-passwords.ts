// Have I Been Pwned's Pwned Passwords range API, asked whether a new password is in a known
// breach: on by default in production only (PWNED_PASSWORDS, PWNED_PASSWORDS_URL). The auth
// module reads `app.pwnedPasswords`; when the check is off it always answers "not breached".
import fp from 'fastify-plugin';

import type { Config } from '../config';
import {
  createPwnedPasswords,
  type PwnedPasswords,
  pwnedPasswordsOff,
} from '../security/pwned-passwords';

declare module 'fastify' {
  interface FastifyInstance {
    pwnedPasswords: PwnedPasswords;
  }
}

/** Long enough for a healthy answer (tens of milliseconds), short enough not to be noticed. */
const DEFAULT_TIMEOUT_MS = 1500;

export interface PwnedPasswordsPluginOptions {
  config: Pick<Config, 'pwnedPasswords'>;
  /** Tests shorten it. */
  timeoutMs?: number;
}

export const pwnedPasswordsPlugin = fp<PwnedPasswordsPluginOptions>(
  async function pwnedPasswordsPlugin(app, { config, timeoutMs }) {
    const settings = config.pwnedPasswords;
    app.decorate(
      'pwnedPasswords',
      settings === 'off'
        ? pwnedPasswordsOff
        : createPwnedPasswords({
            url: settings.url,
            timeoutMs: timeoutMs ?? DEFAULT_TIMEOUT_MS,
            onUnavailable: (reason) =>
              app.log.warn(`Pwned Passwords ${reason}: the new password was taken unchecked`),
          }),
    );
  },
  { name: 'pwned-passwords' },
);
