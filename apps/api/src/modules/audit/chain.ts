// The audit trail's chain (ADR 020): each row's hash is the SHA-256 of the previous row's hash and
// the row itself, so editing, removing or slipping in a row breaks every hash after it. Emails
// enter the hash as an HMAC (keyed from TOKEN_SECRET), never in clear: a deleted member's email
// can then be replaced by a pseudonym without breaking the chain, and an HMAC cannot be reversed
// by trying the addresses of a list the way a bare SHA-256 of an email can.
import { createHash, createHmac } from 'node:crypto';

/** The previous hash of the first row. */
export const GENESIS_HASH = '0'.repeat(64);

/** What a row's hash covers, in this order. */
export interface ChainedFields {
  id: string;
  occurredAt: Date;
  actorId: string | null;
  actorEmailDigest: string;
  actorRole: string;
  action: string;
  targetUserId: string | null;
  targetEmailDigest: string | null;
  reason: string | null;
  changes: string | null;
  requestId: string | null;
  clientAddress: string | null;
}

export function chainHash(previousHash: string, row: ChainedFields): string {
  const fields = [
    row.id,
    row.occurredAt.toISOString(),
    row.actorId,
    row.actorEmailDigest,
    row.actorRole,
    row.action,
    row.targetUserId,
    row.targetEmailDigest,
    row.reason,
    row.changes,
    row.requestId,
    row.clientAddress,
  ];
  return createHash('sha256').update(previousHash).update(JSON.stringify(fields)).digest('hex');
}

/** The HMAC of an email as the chain keeps it: the same address in any case gives one digest. */
export function emailDigest(key: Buffer, email: string): string {
  return createHmac('sha256', key).update(email.trim().toLowerCase()).digest('hex');
}

/** What a deleted account's email becomes in the audit trail: stable, and no one's address. */
export function pseudonymOf(userId: string): string {
  return `deleted-member-${userId.slice(0, 8)}`;
}

/** What stands in the trail where an operator typed the member's own address. */
export const MEMBER_EMAIL_PLACEHOLDER = "[the member's email]";

/**
 * Text an operator wrote (a reason, a note) without the member's address in it, in any case: the
 * trail keeps rows about a deleted member with a pseudonym, and free text must not undo it.
 */
export function withoutEmail(text: string, email: string): string {
  const address = email.trim();
  if (address === '') return text;
  const pattern = new RegExp(address.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'), 'gi');
  return text.replace(pattern, MEMBER_EMAIL_PLACEHOLDER);
}
