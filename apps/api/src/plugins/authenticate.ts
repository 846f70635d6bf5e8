// Bearer access tokens for signed-in calls. Beyond the JWT's signature and expiry the session
// must still be live, so a logout or a password change takes effect at once rather than in
// 15 minutes. Which sessions are live is the auth module's to say: it is handed in as
// `findSignedInAccount`, so this plugin knows no module. That one statement also reads the
// member's account, which the call then has at hand: a signed-in call that needs no more (the
// profile, the hottest) costs one query, not two.
import type { FastifyReply, FastifyRequest } from 'fastify';
import fp from 'fastify-plugin';

import { AppError, SESSION_ENDED_MESSAGE } from '../errors';
import { createSessionTokens, type SessionTokens } from '../security/session-tokens';

export interface SignedInMember {
  userId: string;
  sessionId: string;
  /** The member's account as it was when the call began. */
  account: SignedInAccount;
}

/** What every signed-in call knows of its member without another query. */
export interface SignedInAccount {
  id: string;
  email: string;
  subscriptionEndDate: Date | null;
  hasPassword: boolean;
  /** Two-step sign-in is on: changes of credentials ask for a code. */
  twoStepEnabled: boolean;
  /** His language as stored (users.locale); null: never chosen. Mails to him go out in it. */
  locale: string | null;
}

declare module 'fastify' {
  interface FastifyInstance {
    /** preHandler for signed-in calls: sets `request.caller` or answers 401. */
    authenticate: (request: FastifyRequest, reply: FastifyReply) => Promise<void>;
    /**
     * For a call open to everyone that treats a member apart (a checkout for his own account):
     * the caller when the request carries a live session's token, else undefined, never a 401.
     */
    findSignedInCaller: (request: FastifyRequest) => Promise<SignedInMember | undefined>;
    /** Issues and verifies the access and refresh tokens (one key for the whole server). */
    sessionTokens: SessionTokens;
  }
  interface FastifyRequest {
    caller?: SignedInMember;
  }
}

export interface AuthenticateOptions {
  tokenSecret: string;
  /** The account of a live session of this user; undefined when the session has ended. */
  findSignedInAccount: (claims: {
    userId: string;
    sessionId: string;
  }) => Promise<SignedInAccount | undefined>;
}

export const authenticatePlugin = fp<AuthenticateOptions>(
  async function authenticatePlugin(app, { tokenSecret, findSignedInAccount }) {
    const tokens = createSessionTokens(tokenSecret);
    app.decorate('sessionTokens', tokens);
    app.decorateRequest('caller', undefined);
    /** The caller of a bearer token: undefined when it is invalid, expired or its session ended. */
    async function callerOfToken(token: string): Promise<SignedInMember | undefined> {
      const claims = await tokens.verifyAccessToken(token).catch(() => undefined);
      if (!claims) return undefined;
      const account = await findSignedInAccount(claims);
      return account ? { ...claims, account } : undefined;
    }
    app.decorate('authenticate', async function authenticate(request: FastifyRequest) {
      const token = bearerTokenOf(request);
      if (!token) throw new AppError(401, 'Please sign in');
      const caller = await callerOfToken(token);
      if (!caller) throw new AppError(401, SESSION_ENDED_MESSAGE);
      request.caller = caller;
    });
    app.decorate('findSignedInCaller', async function findSignedInCaller(request: FastifyRequest) {
      const token = bearerTokenOf(request);
      // A stale token must not stop a visitor: the call is open to everyone.
      return token ? callerOfToken(token) : undefined;
    });
  },
  { name: 'authenticate', dependencies: ['database'] },
);

function bearerTokenOf(request: FastifyRequest): string | undefined {
  return /^Bearer\s+(\S+)$/i.exec(request.headers.authorization ?? '')?.[1];
}

/** The caller of a route guarded by `app.authenticate`. */
export function callerOf(request: FastifyRequest): SignedInMember {
  if (!request.caller) throw new AppError(401, 'Please sign in');
  return request.caller;
}
