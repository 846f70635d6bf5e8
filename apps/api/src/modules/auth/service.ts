// The account service: every account journey, each in a file of its own, put together as the one
// object the routes call. No HTTP and no SQL in any of them: routes call these functions, the
// *-repo.ts files hold the queries (session-repo.ts: sessions and refresh tokens, code-repo.ts:
// one-time codes, undo-repo.ts: email-change undo windows), and each multi-step change is one
// transaction.
import type { PageLocale } from '@kegel/contract/i18n';
import type { Kysely, Transaction } from 'kysely';

import type { Database } from '../../db/schema';
import { createCredentialChecks } from './credential-checks';
import { createEmailChange } from './email-change';
import { createEmailChangeUndo } from './email-change-undo';
import { createPasswords } from './passwords';
import { createRegistration } from './registration';
import * as sessionRepo from './session-repo';
import { listSignIns, reportSignIn } from './sign-in-history';
import * as undoRepo from './undo-repo';
import type { AuthServiceDependencies } from './rules';
import { createSessions } from './sessions';

export {
  accountFailuresRule,
  type AuthServiceDependencies,
  EMAIL_CHANGE_VALID_SECONDS,
  type KnownAccount,
  PASSWORD_RESET_VALID_SECONDS,
  passwordFailureGate,
  REFRESH_GRACE_SECONDS,
  rateLimitRules,
  SESSION_LIFETIME_SECONDS,
} from './rules';

export type AuthService = ReturnType<typeof createAuthService>;

export function createAuthService(deps: AuthServiceDependencies) {
  const checks = createCredentialChecks(deps);
  const sessions = createSessions(deps, checks);
  const emailChangeUndo = createEmailChangeUndo({
    db: deps.db,
    mail: deps.mail,
    publicUrl: deps.publicUrl,
    supportEmail: deps.supportEmail,
    secureAccount: sessions.secureAccount,
    onEmailChanged: deps.onEmailChanged,
  });
  return {
    ...sessions,
    ...createRegistration(deps, checks),
    ...createPasswords(deps, checks, sessions),
    ...createEmailChange(deps, checks, emailChangeUndo),
    rememberSignInAddress: checks.rememberSignInAddress,
    checkUnderFailureGates: checks.checkUnderFailureGates,
    confirmCurrentPassword: checks.confirmCurrentPassword,
    /** When the session signed in; undefined once it has ended. */
    sessionStartedAt: async (sessionId: string) =>
      (await sessionRepo.findLiveSession(deps.db, sessionId))?.createdAt,
    /** Whether an address the account moved away from can still take it back (ADR 016). */
    hasOpenEmailChangeUndo: (userId: string) => emailChangeUndo.hasOpenWindow(deps.db, userId),
    isKnownAddress: checks.isKnownAddress,
    /**
     * Whether an address is held for the account that moved away from it (its "this wasn't me"
     * link is open): no account may be made with it meanwhile, by any path (ADR 016).
     */
    isAddressHeldForUndo: (executor: Kysely<Database> | Transaction<Database>, email: string) =>
      undoRepo.isAddressHeldForUndo(executor, email),
    /** "This wasn't me", from the notice mailed to the old address (email-change-undo.ts). */
    cancelEmailChange: (input: { code: string }) => emailChangeUndo.undo(input),
    listEmailChangeUndoWindows: (caller: { userId: string; sessionId: string }) =>
      emailChangeUndo.listWindows(caller),
    closeEmailChangeUndoWindows: (caller: { userId: string; sessionId: string }) =>
      emailChangeUndo.closeWindows(caller),
    /** Sign-in history: the latest sign-ins and failed attempts (sign-in-history.ts). */
    listSignIns: (userId: string, locale: PageLocale) => listSignIns(deps.db, userId, locale),
    /** "This wasn't me", from the notice of a sign-in from a new device (sign-in-history.ts). */
    reportSignIn: (input: { code: string }) =>
      reportSignIn({ ...deps, secureAccount: sessions.secureAccount }, input),
  };
}

/**
 * The account of a signed-in caller whose session is still open (not signed out, revoked or
 * expired); undefined otherwise. Runs on every signed-in call: one statement, compiled once.
 */
export function findSignedInAccount(
  db: Kysely<Database>,
  claims: { userId: string; sessionId: string },
) {
  return sessionRepo.findSignedInAccount(db, claims);
}
