// Where a member is signed in: the list of his open sessions (his devices), and signing one or
// all of the others out.
import type { Kysely } from 'kysely';

import { type SessionItem } from '@kegel/contract';
import type { PageLocale } from '@kegel/contract/i18n';

import type { Database } from '../../db/schema';
import { isUuid } from '../../db/ids';
import { AppError } from '../../errors';
import { deviceLabelIn } from '../../security/device-label';
import * as sessionRepo from './session-repo';
import { messages } from './rules';

/** Where the member is signed in: his open sessions, last used first, his own marked. */
export async function listSessions(
  db: Kysely<Database>,
  caller: { userId: string; sessionId: string },
  /** What the devices are named in: the page's language. */
  locale: PageLocale,
): Promise<SessionItem[]> {
  const sessions = await sessionRepo.listLiveSessions(db, caller.userId);
  return sessions.map((session) => ({
    id: session.id,
    createdAt: session.createdAt.toISOString(),
    lastUsedAt: session.lastUsedAt.toISOString(),
    device: deviceLabelIn(locale, session.deviceLabel),
    method: session.signInMethod,
    current: session.id === caller.sessionId,
  }));
}

/** Signs one of the member's sessions out; 404 for a session that is not his (or has ended). */
export async function endSession(
  db: Kysely<Database>,
  caller: { userId: string },
  sessionId: string,
): Promise<void> {
  const isEnded = isUuid(sessionId)
    ? await sessionRepo.revokeSessionOfUser(
        db,
        caller.userId,
        sessionId,
        'signed out by the member',
      )
    : false;
  if (!isEnded) throw new AppError(404, messages.sessionNotFound);
}

/** Signs every session of the member out but the one asking. */
export async function endOtherSessions(
  db: Kysely<Database>,
  caller: { userId: string; sessionId: string },
): Promise<void> {
  await sessionRepo.revokeSessionsOfUser(db, caller.userId, {
    reason: 'signed out of other devices',
    exceptSessionId: caller.sessionId,
  });
}
