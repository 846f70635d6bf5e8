import type { FastifyReply, FastifyRequest } from 'fastify';
import fp from 'fastify-plugin';

import type { Database } from '../db/schema';
import { AppError, SESSION_ENDED_MESSAGE } from '../errors';
import { findLiveSession } from '../modules/auth/repo';
import type { SessionTokens } from '../security/session-tokens';
import type { Kysely } from 'kysely';

export interface Caller {
  userId: string;
  sessionId: string;
}

declare module 'fastify' {
  interface FastifyInstance {
    /** preHandler for signed-in calls: sets `request.caller` or answers 401. */
    authenticate: (request: FastifyRequest, reply: FastifyReply) => Promise<void>;
  }
  interface FastifyRequest {
    caller?: Caller;
  }
}

/**
 * Bearer access tokens. Beyond the JWT's signature and expiry, the session must still be live,
 * so a logout or a password change takes effect at once rather than in 15 minutes.
 */
export const authenticatePlugin = fp<{ db: Kysely<Database>; tokens: SessionTokens }>(
  async function authenticatePlugin(app, { db, tokens }) {
    app.decorateRequest('caller', undefined);
    app.decorate('authenticate', async function authenticate(request: FastifyRequest) {
      const match = /^Bearer\s+(\S+)$/i.exec(request.headers.authorization ?? '');
      if (!match?.[1]) throw new AppError(401, 'Please sign in');
      const claims = await tokens.verifyAccessToken(match[1]).catch(() => {
        throw new AppError(401, SESSION_ENDED_MESSAGE);
      });
      const session = await findLiveSession(db, claims.sessionId);
      if (!session || session.userId !== claims.userId)
        throw new AppError(401, SESSION_ENDED_MESSAGE);
      request.caller = claims;
    });
  },
  { name: 'authenticate' },
);

/** The caller of a route guarded by `app.authenticate`. */
export function callerOf(request: FastifyRequest): Caller {
  if (!request.caller) throw new AppError(401, 'Please sign in');
  return request.caller;
}
