// The audit trail as the desk lists it: newest first, filtered by operator, member, action and
// time, a page at a time. Reading it is not audited.
import type { AuditQuery, AuditResponse, AuditRow } from '@kegel/contract';
import type { Kysely } from 'kysely';

import type { Database } from '../../db/schema';
import { AppError } from '../../errors';
import { auditRepo } from '../audit';

export const AUDIT_PAGE_SIZE = 50;

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
/** The cursor is the last row's sequence, which only grows: pages never shift. */
const CURSOR = /^\d{1,19}$/;

function partyOf(term: string | undefined): auditRepo.AuditPartyFilter | undefined {
  if (!term) return undefined;
  return UUID.test(term) ? { id: term.toLowerCase() } : { email: term };
}

export async function listAudit(
  db: Kysely<Database>,
  query: AuditQuery,
  pageSize = AUDIT_PAGE_SIZE,
): Promise<AuditResponse> {
  if (query.cursor !== undefined && !CURSOR.test(query.cursor)) {
    throw new AppError(
      400,
      'This page of the audit trail is out of date: start from its first page',
    );
  }
  const rows = await auditRepo.listAuditRows(
    db,
    {
      operator: partyOf(query.operator),
      member: partyOf(query.member),
      action: query.action || undefined,
      from: query.from ? boundOf(query.from) : undefined,
      to: query.to ? boundOf(query.to) : undefined,
      beforeSequence: query.cursor,
    },
    pageSize + 1,
  );
  const page = rows.slice(0, pageSize);
  const last = page.at(-1);
  return {
    data: page.map(auditRowOf),
    nextCursor: rows.length > pageSize && last ? String(last.sequence) : null,
  };
}

function auditRowOf(row: Awaited<ReturnType<typeof auditRepo.listAuditRows>>[number]): AuditRow {
  return {
    id: row.id,
    sequence: Number(row.sequence),
    at: row.occurredAt.toISOString(),
    actor: { id: row.actorId, email: row.actorEmail, role: row.actorRole },
    action: row.action,
    member: row.targetUserId ? { id: row.targetUserId, email: row.targetEmail } : null,
    reason: row.reason,
    changes: row.changes === null ? null : (JSON.parse(row.changes) as Record<string, unknown>),
    requestId: row.requestId,
    clientAddress: row.clientAddress,
  };
}

/**
 * A filter's date, within the years the trail can hold: ISO 8601 allows year 0000, which
 * PostgreSQL refuses (a 500 rather than a 400).
 */
function boundOf(iso: string): Date {
  const date = new Date(iso);
  const year = date.getUTCFullYear();
  if (Number.isNaN(year) || year < 1970 || year > 9999) {
    throw new AppError(400, 'Choose a date from the year 1970 to 9999');
  }
  return date;
}
