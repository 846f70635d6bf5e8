// A signed-in operator of the support desk, as `GET /users/operator` tells the web app.
import type { OperatorRole, OperatorStatus } from '@kegel/contract';

import { fakeApi } from './fake-api';
import { signInAs } from './render-app';

const HOUR_MS = 60 * 60 * 1000;

/** An operator whose desk is open (a second factor proved an hour ago), unless told otherwise. */
export function signInAsOperator(
  role: OperatorRole | null = 'support',
  status: Partial<OperatorStatus> = {},
): OperatorStatus {
  signInAs({ email: 'agent@example.com', twoStepEnabled: true });
  const operator: OperatorStatus = {
    role,
    hasSecondFactor: true,
    hasTwoStep: true,
    hasPasskey: false,
    secondFactorAt: new Date(Date.now() - HOUR_MS).toISOString(),
    deskOpenUntil: new Date(Date.now() + 11 * HOUR_MS).toISOString(),
    deskClosedUntil: null,
    ...status,
  };
  fakeApi.on('operatorStatus', { body: operator });
  return operator;
}
