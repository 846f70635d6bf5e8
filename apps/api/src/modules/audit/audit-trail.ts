// The audit trail (ADR 020): one row per operator action and per member page an operator opens,
// written in the transaction of the change it records, chained by hash (chain.ts). Nothing here
// edits or deletes a row: the only change is the pseudonym of a deleted account's email.
import { randomUUID } from 'node:crypto';

import type { Kysely, Transaction } from 'kysely';

import type { Database } from '../../db/schema';
import { chainHash, emailDigest, GENESIS_HASH, pseudonymOf, withoutEmail } from './chain';
import * as repo from './repo';

/** Who acted: an operator (his account and role), or the server's command line. */
export interface AuditActor {
  id: string | null;
  email: string;
  role: 'support' | 'admin' | 'command line';
}

/** Where the action came from: the request, when there was one. */
export interface AuditOrigin {
  requestId: string | null;
  clientAddress: string | null;
}

export interface AuditEvent {
  action: string;
  target?: { userId: string; email: string };
  reason?: string;
  /** What changed, as the operator would read it. */
  changes?: { before: unknown; after: unknown };
}

export type AuditTrail = ReturnType<typeof createAuditTrail>;

export interface AuditTrailDependencies {
  /** HMAC key of the emails in the chain: deriveKey(TOKEN_SECRET, 'audit-email'). */
  emailKey: Buffer;
}

export function createAuditTrail({ emailKey }: AuditTrailDependencies) {
  return {
    record: (
      transaction: Transaction<Database>,
      by: { actor: AuditActor; origin: AuditOrigin },
      event: AuditEvent,
    ) => recordAuditEvent(emailKey, transaction, by, event),
    verify: (db: Kysely<Database>) => verifyAuditChain(emailKey, db),
    pseudonymise: (transaction: Transaction<Database>, userId: string) =>
      repo.pseudonymiseEmailsOf(transaction, userId, pseudonymOf(userId)),
  };
}

/** Appends one row, chained to the last; inside the caller's transaction. Answers its id. */
async function recordAuditEvent(
  emailKey: Buffer,
  transaction: Transaction<Database>,
  { actor, origin }: { actor: AuditActor; origin: AuditOrigin },
  event: AuditEvent,
): Promise<{ id: string; sequence: number; occurredAt: Date }> {
  const previousHash = (await repo.lockAndReadLastHash(transaction)) ?? GENESIS_HASH;
  // The member's address is kept where a pseudonym can replace it, never in free text.
  const scrub = (text: string): string =>
    event.target ? withoutEmail(text, event.target.email) : text;
  const fields = {
    id: randomUUID(),
    // Milliseconds: what a Date carries, so the hash is the same when the row is read back.
    occurredAt: new Date(),
    actorId: actor.id,
    actorEmailDigest: emailDigest(emailKey, actor.email),
    actorRole: actor.role,
    action: event.action,
    targetUserId: event.target?.userId ?? null,
    targetEmailDigest: event.target ? emailDigest(emailKey, event.target.email) : null,
    reason: event.reason === undefined ? null : scrub(event.reason),
    changes: event.changes ? scrub(JSON.stringify(event.changes)) : null,
    requestId: origin.requestId,
    clientAddress: origin.clientAddress,
  };
  const { sequence } = await repo.insertAuditRow(transaction, {
    ...fields,
    actorEmail: actor.email,
    targetEmail: event.target?.email ?? null,
    previousHash,
    hash: chainHash(previousHash, fields),
  });
  return { id: fields.id, sequence: Number(sequence), occurredAt: fields.occurredAt };
}

export interface AuditChainReport {
  rows: number;
  /** The last row's hash: kept elsewhere, it shows a removal of the newest rows too. */
  headHash: string;
  problems: Array<{ sequence: number; id: string; problem: string }>;
}

const PAGE = 1000;

/** Reads the whole chain in order and names every row that does not hold. */
async function verifyAuditChain(emailKey: Buffer, db: Kysely<Database>): Promise<AuditChainReport> {
  const problems: AuditChainReport['problems'] = [];
  let previousHash = GENESIS_HASH;
  let rows = 0;
  let after: string | null = null;
  for (;;) {
    const page = await repo.listChainAfter(db, after, PAGE);
    for (const row of page) {
      rows += 1;
      const at = { sequence: Number(row.sequence), id: row.id };
      if (row.previousHash !== previousHash) {
        problems.push({
          ...at,
          problem: 'does not follow the row before it (one was removed or slipped in)',
        });
      }
      if (chainHash(row.previousHash, row) !== row.hash) {
        problems.push({
          ...at,
          problem: 'was changed after it was written (its hash does not match)',
        });
      }
      const emailProblem = emailMismatch(emailKey, row);
      if (emailProblem) problems.push({ ...at, problem: emailProblem });
      previousHash = row.hash;
    }
    if (page.length < PAGE) break;
    after = page[page.length - 1]?.sequence ?? null;
  }
  return { rows, headHash: previousHash, problems };
}

/** An email that is neither the one the chain's HMAC names nor the account's pseudonym. */
function emailMismatch(
  emailKey: Buffer,
  row: {
    actorId: string | null;
    actorEmail: string;
    actorEmailDigest: string;
    targetUserId: string | null;
    targetEmail: string | null;
    targetEmailDigest: string | null;
    pseudonymisedAt: Date | null;
  },
): string | undefined {
  const holds = (email: string | null, digest: string | null, userId: string | null) =>
    email === null
      ? digest === null
      : digest !== null &&
        (emailDigest(emailKey, email) === digest ||
          (row.pseudonymisedAt !== null && userId !== null && email === pseudonymOf(userId)));
  if (!holds(row.actorEmail, row.actorEmailDigest, row.actorId))
    return "its operator's email was changed";
  if (!holds(row.targetEmail, row.targetEmailDigest, row.targetUserId))
    return "its member's email was changed";
  return undefined;
}
