// Operators of the support desk as the tests make them: an account signed up through HTTP, the
// role granted by the operator command (as `npm run operator` runs it), two-step sign-in turned
// on, and a session opened with the code (so the desk is open to it for 12 hours).
import type { OperatorRole } from '@kegel/contract';
import type { FastifyInstance, LightMyRequestResponse } from 'fastify';
import { expect } from 'vitest';

import { createAuditTrail } from '../../src/modules/audit';
import { runOperatorCommand } from '../../src/modules/operators/command';
import { deriveKey } from '../../src/security/keys';
import { registerAndLogin } from './accounts';
import { TEST_TOKEN_SECRET, uniqueEmail } from './test-app';
import { appCode, passwordStep, turnOnTwoStep, verifySignIn, waitForNextCode } from './two-step';

export const OPERATOR_PASSWORD = 'operator passphrase';

/** The trail as the test server keeps it (same key, from the tests' TOKEN_SECRET). */
export function testAuditTrail() {
  return createAuditTrail({ emailKey: deriveKey(TEST_TOKEN_SECRET, 'audit-email') });
}

/** Runs `npm run operator -- <args>` against the test server's database: exit code and output. */
export async function operatorCommand(
  app: FastifyInstance,
  args: string[],
): Promise<{ code: number; out: string[]; errors: string[] }> {
  const out: string[] = [];
  const errors: string[] = [];
  const code = await runOperatorCommand(args, {
    db: app.database.db,
    trail: testAuditTrail(),
    output: { out: (line) => out.push(line), error: (line) => errors.push(line) },
  });
  return { code, out, errors };
}

export interface TestOperator {
  email: string;
  userId: string;
  /** A session that proved the second factor at sign-in. */
  accessToken: string;
  refreshToken: string;
  secret: string;
}

/**
 * An operator with the role, two-step sign-in on and a session that used it. Call
 * `useMovableClock()` first (a code of a step already used is refused: it waits for the next).
 */
export async function makeOperator(
  app: FastifyInstance,
  role: OperatorRole,
  label: string = role,
): Promise<TestOperator> {
  const email = uniqueEmail(`op-${label}`);
  const first = await registerAndLogin(app, email, OPERATOR_PASSWORD);
  const { secret } = await turnOnTwoStep(app, first.accessToken);
  const granted = await operatorCommand(app, ['grant', email, '--role', role]);
  expect(granted.code, granted.errors.join('\n')).toBe(0);
  waitForNextCode();
  const mfaToken = await passwordStep(app, email, OPERATOR_PASSWORD);
  const verified = await verifySignIn(app, { mfaToken, code: appCode(secret) });
  expect(verified.statusCode, verified.body).toBe(200);
  const { accessToken, refreshToken } = verified.json<{
    accessToken: string;
    refreshToken: string;
  }>();
  const profile = await app.inject({
    method: 'GET',
    url: '/api/users/profile',
    headers: { authorization: `Bearer ${accessToken}` },
  });
  return { email, userId: profile.json<{ id: string }>().id, accessToken, refreshToken, secret };
}

/** A call of the API with a bearer token (any method, JSON body). */
export function callApi(
  app: FastifyInstance,
  method: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE',
  url: string,
  accessToken?: string,
  payload?: unknown,
): Promise<LightMyRequestResponse> {
  return app.inject({
    method,
    url: `/api${url}`,
    ...(payload === undefined ? {} : { payload: payload as Record<string, unknown> }),
    headers: accessToken ? { authorization: `Bearer ${accessToken}` } : {},
  });
}
