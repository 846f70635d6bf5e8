// What the tests of the support desk's actions share: a member to act on, a call from a given
// client address, and what the server wrote about the member (audit rows, mail in the outbox).
import type { FastifyInstance, LightMyRequestResponse } from 'fastify';
import { expect } from 'vitest';

import { registerAndLogin } from './accounts';
import { uniqueEmail } from './test-app';

export interface TestMember {
  email: string;
  userId: string;
  accessToken: string;
  refreshToken: string;
}

export const MEMBER_PASSWORD = 'member passphrase';

export async function makeMember(app: FastifyInstance, label = 'member'): Promise<TestMember> {
  const email = uniqueEmail(label);
  const tokens = await registerAndLogin(app, email, MEMBER_PASSWORD);
  const profile = await app.inject({
    method: 'GET',
    url: '/api/users/profile',
    headers: { authorization: `Bearer ${tokens.accessToken}` },
  });
  expect(profile.statusCode, profile.body).toBe(200);
  return {
    email,
    userId: profile.json<{ id: string }>().id,
    accessToken: tokens.accessToken,
    refreshToken: tokens.refreshToken,
  };
}

/** An /api call with a bearer token and a JSON body, from `clientAddress`. */
export function deskCall(
  app: FastifyInstance,
  method: 'GET' | 'POST' | 'DELETE',
  url: string,
  accessToken: string | undefined,
  payload?: unknown,
  clientAddress = '127.0.0.1',
): Promise<LightMyRequestResponse> {
  return app.inject({
    method,
    url: `/api${url}`,
    remoteAddress: clientAddress,
    ...(payload === undefined ? {} : { payload: payload as Record<string, unknown> }),
    headers: accessToken ? { authorization: `Bearer ${accessToken}` } : {},
  });
}

/** The audit rows about a member, oldest first, as an operator would read them. */
export async function auditRowsAbout(app: FastifyInstance, userId: string) {
  const rows = await app.database.db
    .selectFrom('auditEvents')
    .select([
      'actorId',
      'actorEmail',
      'actorRole',
      'action',
      'targetUserId',
      'targetEmail',
      'reason',
      'changes',
      'requestId',
      'clientAddress',
    ])
    .where('targetUserId', '=', userId)
    .orderBy('sequence')
    .execute();
  return rows.map((row) => ({
    ...row,
    changes: row.changes === null ? null : (JSON.parse(row.changes) as unknown),
  }));
}

/** The templates of the mail written for a member, oldest first (sent or not yet). */
export async function mailTemplatesFor(app: FastifyInstance, userId: string): Promise<string[]> {
  const rows = await app.database.db
    .selectFrom('outboxEmails')
    .select('template')
    .where('userId', '=', userId)
    .orderBy('createdAt')
    .execute();
  return rows.map((row) => row.template);
}

/** The member's premium end, as his profile answers it. */
export async function premiumEndOf(
  app: FastifyInstance,
  member: Pick<TestMember, 'accessToken'>,
): Promise<string | null> {
  const profile = await app.inject({
    method: 'GET',
    url: '/api/users/profile',
    headers: { authorization: `Bearer ${member.accessToken}` },
  });
  return profile.json<{ subscriptionEndDate: string | null }>().subscriptionEndDate;
}
