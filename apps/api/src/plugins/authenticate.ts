// Bearer access tokens for signed-in calls. Beyond the JWT's signature and expiry the session
// must still be live, so a logout or a password change takes effect at once rather than in
// 15 minutes. Which sessions are live is the auth module's to say: it is handed in as
// `isSessionLive`, so this plugin knows no module.
import type { FastifyReply, FastifyRequest } from 'fastify';
import fp from 'fastify-plugin';

import { AppError, SESSION_ENDED_MESSAGE } from '../errors';
import { createSessionTokens, type SessionTokens } from '../security/session-tokens';

export interface Caller {
  userId: string;
  sessionId: string;
}

declare module 'fastify' {
  interface FastifyInstance {
    /** preHandler for signed-in calls: sets `request.caller` or answers 401. */
    authenticate: (request: FastifyRequest, reply: FastifyReply) => Promise<void>;
    /** Issues and verifies the access and refresh tokens (one key for the whole server). */
    sessionTokens: SessionTokens;
  }
  interface FastifyRequest {
    caller?: Caller;
  }
}

export interface AuthenticateOptions {
  tokenSecret: string;
  isSessionLive: (caller: Caller) => Promise<boolean>;
}

export const authenticatePlugin = fp<AuthenticateOptions>(
  async function authenticatePlugin(app, { tokenSecret, isSessionLive }) {
    const tokens = createSessionTokens(tokenSecret);
    app.decorate('sessionTokens', tokens);
    app.decorateRequest('caller', undefined);
    app.decorate('authenticate', async function authenticate(request: FastifyRequest) {
      const match = /^Bearer\s+(\S+)$/i.exec(request.headers.authorization ?? '');
      if (!match?.[1]) throw new AppError(401, 'Please sign in');
      const claims = await tokens.verifyAccessToken(match[1]).catch(() => {
        throw new AppError(401, SESSION_ENDED_MESSAGE);
      });
      if (!(await isSessionLive(claims))) throw new AppError(401, SESSION_ENDED_MESSAGE);
      request.caller = claims;
    });
  },
  { name: 'authenticate', dependencies: ['database'] },
);

/** The caller of a route guarded by `app.authenticate`. */
export function callerOf(request: FastifyRequest): Caller {
  if (!request.caller) throw new AppError(401, 'Please sign in');
  return request.caller;
}
