// What the support desk (ADR 020) is made of, handed in by the composition root: the database,
// the audit trail, and what it asks of other modules and of the outside world.
import type { Kysely } from 'kysely';

import type { Database } from '../../db/schema';
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
}

/** Who did it and from where, as the audit trail records it. */
export interface DeskAction {
  operator: Operator;
  origin: AuditOrigin;
}

export function auditActorOf(operator: Operator): AuditActor {
  return { id: operator.userId, email: operator.email, role: operator.role };
}
