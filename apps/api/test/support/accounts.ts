import type { TokenPair } from '@kegel/contract';
import type { FastifyInstance, LightMyRequestResponse } from 'fastify';
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
  const asked = await post(server.app, '/auth/change-email', change, accessToken);
  expect(asked.statusCode, asked.body).toBe(200);
  const link = linkIn(
    await server.inbox.waitFor(
      (mail) => mail.to.includes(change.newEmail) && mail.subject.startsWith('Confirm'),
    ),
  );
  const confirmed = await post(server.app, '/auth/change-email/verify', {
    code: link.searchParams.get('code'),
    newEmail: change.newEmail,
  });
  expect(confirmed.statusCode, confirmed.body).toBe(200);
}
