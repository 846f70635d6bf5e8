import type { TokenPair } from '@kegel/contract';
import type { FastifyInstance, LightMyRequestResponse } from 'fastify';
import { sql } from 'kysely';
import { expect } from 'vitest';

import { linkIn, type TestServer } from './test-app';

/** Drives the account calls through HTTP, as a client would. */
export function post(
  app: FastifyInstance,
  url: string,
  payload: unknown,
  accessToken?: string,
): Promise<LightMyRequestResponse> {
  return app.inject({
    method: 'POST',
    url: `/api${url}`,
    payload: payload as Record<string, unknown>,
    headers: accessToken ? { authorization: `Bearer ${accessToken}` } : {},
  });
}

/** As `post`, from a client at `remoteAddress` (the limits count per client address). */
export function postFrom(
  app: FastifyInstance,
  remoteAddress: string,
  url: string,
  payload: unknown,
): Promise<LightMyRequestResponse> {
  return app.inject({
    method: 'POST',
    url: `/api${url}`,
    payload: payload as Record<string, unknown>,
    remoteAddress,
  });
}

export function getProfile(
  app: FastifyInstance,
  accessToken: string,
): Promise<LightMyRequestResponse> {
  return app.inject({
    method: 'GET',
    url: '/api/users/profile',
    headers: { authorization: `Bearer ${accessToken}` },
  });
}

export async function register(
  app: FastifyInstance,
  email: string,
  password: string,
): Promise<void> {
  const response = await post(app, '/auth/local/register/email', { email, password });
  expect(response.statusCode, response.body).toBe(201);
}

export async function login(
  app: FastifyInstance,
  email: string,
  password: string,
): Promise<TokenPair> {
  const response = await post(app, '/auth/local/login/email', { email, password });
  expect(response.statusCode, response.body).toBe(200);
  return response.json<TokenPair>();
}

export async function registerAndLogin(
  app: FastifyInstance,
  email: string,
  password: string,
): Promise<TokenPair> {
  await register(app, email, password);
  return login(app, email, password);
}

/** The payload of a JWT, unverified: what the web app reads to see `exp`. */
export function decodeJwt(token: string): Record<string, unknown> {
  const [header, payload] = token.split('.');
  return {
    header: JSON.parse(Buffer.from(header ?? '', 'base64url').toString()) as unknown,
    ...(JSON.parse(Buffer.from(payload ?? '', 'base64url').toString()) as Record<string, unknown>),
  };
}

/**
 * Moves a signed-in member to `newEmail` as he would: asks for the change, then follows the link
 * mailed to the new address.
 */
export async function changeEmailThroughLink(
  server: TestServer,
  accessToken: string,
  change: { newEmail: string; password: string },
): Promise<void> {
  const confirmed = await confirmEmailChange(
    server,
    await askForEmailChange(server, accessToken, change),
  );
  expect(confirmed.statusCode, confirmed.body).toBe(200);
}

/** Asks for an email change and reads the confirmation link mailed to the new address. */
export async function askForEmailChange(
  server: TestServer,
  accessToken: string,
  change: { newEmail: string; password: string },
): Promise<{ code: string; newEmail: string }> {
  const asked = await post(server.app, '/auth/change-email', change, accessToken);
  expect(asked.statusCode, asked.body).toBe(200);
  const link = linkIn(
    await server.inbox.waitFor(
      (mail) => mail.to.includes(change.newEmail) && mail.subject.startsWith('Confirm'),
    ),
  );
  return { code: link.searchParams.get('code') ?? '', newEmail: change.newEmail };
}

/** Follows the confirmation link of `askForEmailChange`. */
export function confirmEmailChange(
  server: TestServer,
  change: { code: string; newEmail: string },
): Promise<LightMyRequestResponse> {
  return post(server.app, '/auth/change-email/verify', change);
}

/** Sets a new password through the reset link mailed to `email`. */
export async function resetPasswordThroughLink(
  server: TestServer,
  email: string,
  newPassword: string,
): Promise<void> {
  const resetMails = () =>
    server.inbox
      .messages()
      .filter((mail) => mail.to.includes(email) && mail.subject.includes('Reset your'));
  const before = resetMails().length;
  await post(server.app, '/auth/reset-password', { email });
  await expect.poll(() => resetMails().length, { timeout: 10_000 }).toBeGreaterThan(before);
  const link = linkIn(resetMails().at(-1)!);
  const response = await post(server.app, '/auth/reset-password/confirm', {
    email,
    code: link.searchParams.get('code'),
    newPassword,
  });
  expect(response.statusCode, response.body).toBe(200);
}

/** The "This was not me" code of the latest notice mailed to `email` about a move to `newEmail`. */
export async function undoCodeMailedTo(
  server: TestServer,
  email: string,
  newEmail: string,
): Promise<string> {
  const notice = await server.inbox.waitFor(
    (mail) =>
      mail.to.includes(email) &&
      mail.subject.includes('email address is being changed') &&
      mail.text.includes(newEmail),
  );
  return linkIn(notice).searchParams.get('code') ?? '';
}

/** Uses a "This was not me" code. */
export function undoEmailChange(server: TestServer, code: string): Promise<LightMyRequestResponse> {
  return post(server.app, '/auth/change-email/cancel', { code });
}

/** Moves the sign-in of `accessToken`'s session `days` back in time (a long-standing device). */
export async function signedInDaysAgo(
  server: TestServer,
  accessToken: string,
  days: number,
): Promise<void> {
  const { sid } = decodeJwt(accessToken) as { sid: string };
  await server.app.database.db
    .updateTable('authSessions')
    .set({ createdAt: sql<Date>`now() - make_interval(days => ${days})` })
    .where('id', '=', sid)
    .execute();
}

/** Closes the account's email-change undo windows from the session of `accessToken`. */
export function closeUndoWindows(
  server: TestServer,
  accessToken: string,
): Promise<LightMyRequestResponse> {
  return post(server.app, '/users/email-change-undo/close', {}, accessToken);
}
