// What the support desk (ADR 020) is made of, handed in by the composition root: the database,
// the audit trail, and what it asks of other modules and of the outside world.
import { type AuditAction, supportDeskMessages } from '@kegel/contract';
import type { Kysely, Transaction } from 'kysely';

import type { StripeClient } from '../../plugins/payments';
import type { Database } from '../../db/schema';
import { AppError } from '../../errors';
import type { Mailer } from '../../mail/outbox';
import type { AuditActor, AuditOrigin, AuditTrail } from '../audit';
import type { Operator } from '../operators';

export interface SupportDeskDependencies {
  db: Kysely<Database>;
  auditTrail: AuditTrail;
  /**
   * The original transactions of an Apple order id (the App Store Server API's Look Up Order
   * ID); empty when the order is unknown or the App Store Server API is not configured.
   */
  lookUpAppleOrder: (orderId: string) => Promise<Array<{ originalTransactionId: string }>>;
  /** The member is told of each change an operator makes, in the change's transaction. */
  mail: Mailer;
  /** Refunds go through Stripe's API (the official SDK; the local sandbox without a key). */
  stripe: StripeClient;
  /** The auth module's own reset mail, sent for the member (same template, same code rules). */
  auth: {
    mailPasswordReset(
      transaction: Transaction<Database>,
      user: { id: string; email: string; credentialVersion: number; locale: string | null },
    ): Promise<void>;
  };
  publicUrl: string;
  supportEmail: string;
  /** Prometheus: one more operator action of that kind, once its transaction committed. */
  countAction: (action: AuditAction) => void;
}

/** Who did it and from where, as the audit trail records it. */
export interface DeskAction {
  operator: Operator;
  origin: AuditOrigin;
}

export function auditActorOf(operator: Operator): AuditActor {
  return { id: operator.userId, email: operator.email, role: operator.role };
}

/**
 * An operator's own premium and purchases are another operator's to change: one person alone
 * must not be able to grant himself days or refund himself.
 */
export function refuseOwnAccount(operator: Operator, memberId: string | null): void {
  if (memberId === operator.userId) throw new AppError(403, supportDeskMessages.ownAccount);
}
