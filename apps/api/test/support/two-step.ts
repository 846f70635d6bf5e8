// Two-step sign-in as a member's phone does it: codes computed from the secret the setup showed,
// with `otpauth` as authenticator apps compute them (SHA-1, 6 digits, 30-second steps).
import type { FastifyInstance, LightMyRequestResponse } from 'fastify';
import { Secret, TOTP } from 'otpauth';
import { expect, vi } from 'vitest';

import { post } from './accounts';

export interface TwoStepSetup {
  secret: string;
  otpauthUrl: string;
}

/** The app's code for `secret` at `at` (now by default). */
export function appCode(secret: string, at = Date.now()): string {
  return new TOTP({
    secret: Secret.fromBase32(secret),
    algorithm: 'SHA1',
    digits: 6,
    period: 30,
  }).generate({ timestamp: at });
}

/** A six-digit code that is not the app's now, nor a step either side. */
export function wrongCodeFor(secret: string): string {
  const near = new Set([-30_000, 0, 30_000].map((offset) => appCode(secret, Date.now() + offset)));
  for (let candidate = 0; ; candidate += 1) {
    const code = String(candidate).padStart(6, '0');
    if (!near.has(code)) return code;
  }
}

/**
 * Moves the clock (Date only, for the server in this process too) to the next 30-second step: a
 * code of a step already used is refused, so a second sign-in waits for the next code.
 */
export function waitForNextCode(): void {
  vi.setSystemTime(Date.now() + 30_000);
}

/** The test's clock: real time, which `waitForNextCode` jumps forward. */
export function useMovableClock(): void {
  vi.useFakeTimers({ toFake: ['Date'], shouldAdvanceTime: true });
}

export async function setUpTwoStep(
  app: FastifyInstance,
  accessToken: string,
): Promise<TwoStepSetup> {
  const response = await post(app, '/auth/mfa/totp/setup', {}, accessToken);
  expect(response.statusCode, response.body).toBe(200);
  return response.json<TwoStepSetup>();
}

export function confirmTwoStep(
  app: FastifyInstance,
  accessToken: string,
  code: string,
): Promise<LightMyRequestResponse> {
  return post(app, '/auth/mfa/totp/confirm', { code }, accessToken);
}

/** Turns two-step sign-in on for the session's account: its secret and recovery codes. */
export async function turnOnTwoStep(
  app: FastifyInstance,
  accessToken: string,
): Promise<{ secret: string; recoveryCodes: string[] }> {
  const { secret } = await setUpTwoStep(app, accessToken);
  const confirmed = await confirmTwoStep(app, accessToken, appCode(secret));
  expect(confirmed.statusCode, confirmed.body).toBe(200);
  return { secret, recoveryCodes: confirmed.json<{ recoveryCodes: string[] }>().recoveryCodes };
}

/** A password sign-in that must stop at the code step: its mfaToken. */
export async function passwordStep(
  app: FastifyInstance,
  email: string,
  password: string,
): Promise<string> {
  const response = await post(app, '/auth/local/login/email', { email, password });
  expect(response.statusCode, response.body).toBe(200);
  const body = response.json<Record<string, unknown>>();
  expect(body).toEqual({ mfaRequired: true, mfaToken: expect.any(String) });
  return String(body.mfaToken);
}

export function verifySignIn(
  app: FastifyInstance,
  body: { mfaToken: string; code?: string; recoveryCode?: string },
  remoteAddress = '127.0.0.1',
): Promise<LightMyRequestResponse> {
  return app.inject({ method: 'POST', url: '/api/auth/mfa/verify', payload: body, remoteAddress });
}
