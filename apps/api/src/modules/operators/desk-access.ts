// Who may use the support desk (ADR 020): a signed-in operator whose session proved a second
// factor (a two-step code, a passkey) within the last 12 hours. Checked on every /ops call, from
// the database, so a role taken away or a second factor turned off counts at once.
import {
  NEW_SECOND_FACTOR_WAIT_HOURS,
  OPERATOR_SECOND_FACTOR_HOURS,
  type OperatorRole,
  type OperatorStatus,
  supportDeskMessages,
} from '@kegel/contract';
import type { FastifyRequest } from 'fastify';
import type { Kysely } from 'kysely';

import type { Database } from '../../db/schema';
import { AppError } from '../../errors';
import { callerOf } from '../../plugins/authenticate';
import * as repo from './repo';

const SECOND_FACTOR_MS = OPERATOR_SECOND_FACTOR_HOURS * 60 * 60 * 1000;
const NEW_FACTOR_WAIT_MS = NEW_SECOND_FACTOR_WAIT_HOURS * 60 * 60 * 1000;

/** The operator behind an /ops call, once the desk let him in. */
export interface Operator {
  userId: string;
  sessionId: string;
  email: string;
  role: OperatorRole;
}

declare module 'fastify' {
  interface FastifyRequest {
    operator?: Operator;
  }
}

/** The caller's standing on the desk: what `GET /users/operator` answers. */
export async function operatorStatus(
  db: Kysely<Database>,
  session: { userId: string; sessionId: string },
  now = Date.now(),
): Promise<OperatorStatus> {
  const access = await repo.findDeskAccess(db, session);
  const role = access?.role ?? null;
  const provedAt = access?.secondFactorAt ?? null;
  const hasSecondFactor = Boolean(access?.hasTwoStep || access?.hasPasskey);
  const openUntil = provedAt ? new Date(provedAt.getTime() + SECOND_FACTOR_MS) : null;
  // A factor added after the role was granted (by the operator, or by whoever holds his password
  // or a session of his) closes the desk until it is a day old.
  const newestFactorAt = access?.newestFactorAt ? new Date(access.newestFactorAt) : null;
  const closedUntil =
    newestFactorAt && access?.grantedAt && newestFactorAt > access.grantedAt
      ? new Date(newestFactorAt.getTime() + NEW_FACTOR_WAIT_MS)
      : null;
  const isClosed = closedUntil !== null && closedUntil.getTime() > now;
  return {
    role,
    hasSecondFactor,
    hasTwoStep: Boolean(access?.hasTwoStep),
    hasPasskey: Boolean(access?.hasPasskey),
    secondFactorAt: provedAt?.toISOString() ?? null,
    deskOpenUntil:
      role && hasSecondFactor && !isClosed && openUntil && openUntil.getTime() > now
        ? openUntil.toISOString()
        : null,
    deskClosedUntil: role && isClosed ? closedUntil.toISOString() : null,
  };
}

/**
 * preHandler of every /ops call, after `app.authenticate`: 403 for a member who is not an
 * operator, and for an operator without a second factor proved within 12 hours.
 */
export function createDeskGuard(db: Kysely<Database>) {
  return async function requireOperator(request: FastifyRequest): Promise<void> {
    const { userId, sessionId, account } = callerOf(request);
    const status = await operatorStatus(db, { userId, sessionId });
    if (!status.role) throw new AppError(403, supportDeskMessages.notAnOperator);
    if (!status.hasSecondFactor) throw new AppError(403, supportDeskMessages.noSecondFactor);
    if (status.deskClosedUntil) throw new AppError(403, supportDeskMessages.secondFactorTooNew);
    if (!status.deskOpenUntil) throw new AppError(403, supportDeskMessages.confirmSecondFactor);
    request.operator = { userId, sessionId, email: account.email, role: status.role };
  };
}

/** The operator of an /ops call (set by the desk's guard). */
export function operatorOf(request: FastifyRequest): Operator {
  if (!request.operator) throw new AppError(403, supportDeskMessages.notAnOperator);
  return request.operator;
}

/** 403 unless the operator is an admin: refunds, removing grants, granting many days. */
export function requireAdmin(operator: Operator): void {
  if (operator.role !== 'admin') throw new AppError(403, supportDeskMessages.adminOnly);
}
