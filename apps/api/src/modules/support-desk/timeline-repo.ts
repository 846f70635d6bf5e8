// The SQL of a member's timeline: every table that records something of him, read into one
// shape by one `union all`, newest first, a page at a time. No rules (nor wording) live here:
// member-timeline.ts turns each row into a line. Mails give their template and times only,
// never their payload; codes give when they were used, never their hash.
import { type Kysely, sql, type Transaction } from 'kysely';

import type { Database } from '../../db/schema';

type Executor = Kysely<Database> | Transaction<Database>;

/** One row of any source: `a`…`d` are the source's own facts, as text (see each branch). */
export interface TimelineRow {
  id: string;
  /** The instant, as Postgres' text with microseconds, so a cursor repeats it exactly. */
  at: string;
  source: TimelineSource;
  a: string | null;
  b: string | null;
  c: string | null;
  d: string | null;
  actor: string | null;
}

export type TimelineSource =
  | 'account'
  | 'purchase'
  | 'app store notification'
  | 'refund'
  | 'dispute'
  | 'ledger'
  | 'sign-in'
  | 'email change'
  | 'password change'
  | 'mail'
  | 'audit';

/** Where the previous page ended: the last item's instant (as `at` above) and id. */
export interface TimelinePosition {
  at: string;
  id: string;
}

/**
 * The page of the member's timeline after `after` (from the newest when undefined), ordered by
 * (at desc, id desc): ids are unique across sources (each is prefixed by its source), so the
 * order is total and a page never repeats nor skips an item.
 */
export async function listTimelinePage(
  db: Executor,
  userId: string,
  after: TimelinePosition | undefined,
  limit: number,
): Promise<TimelineRow[]> {
  const position = after
    ? sql`where (items.at, items.id) < (${after.at}::timestamptz, ${after.id})`
    : sql``;
  const result = await sql<TimelineRow>`
    with member_purchases as (
      select id, plan_name, provider, amount_cents, currency, created_at, payment_intent_id
      from purchases where user_id = ${userId}
    ),
    items as (${timelineItems(userId)})
    select items.id, to_char(items.at at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"') as at,
      items.source, items.a, items.b, items.c, items.d, items.actor
    from items ${position}
    order by items.at desc, items.id desc
    limit ${limit}
  `.execute(db);
  return result.rows;
}

/**
 * Every source, one branch each, in one shape (`member_purchases` is the member's purchases, a
 * CTE of the query above).
 */
function timelineItems(userId: string) {
  return sql`
      select 'account:' || u.id as id, u.created_at as at, 'account' as source,
        null::text as a, null::text as b, null::text as c, null::text as d, null::text as actor
      from users u where u.id = ${userId}
      union all
      -- a: plan, b: provider, c: amount in cents, d: currency
      select 'purchase:' || p.id, p.created_at, 'purchase',
        p.plan_name, p.provider, p.amount_cents::text, p.currency, null
      from member_purchases p
      union all
      -- a: notification type, b: subtype, c: original transaction id, d: environment
      select 'app-store:' || n.notification_uuid, n.received_at, 'app store notification',
        n.notification_type, n.subtype, n.original_transaction_id, n.environment, null
      from app_store_notifications n
      where n.original_transaction_id in (
        select s.original_transaction_id from app_store_subscriptions s where s.user_id = ${userId}
        union
        select p.provider_payment_id from purchases p
        where p.user_id = ${userId} and p.provider = 'Apple'
      )
      union all
      -- a: refunded so far, in cents, b: currency, c: the purchase's plan
      select 'refund:' || c.charge_id, coalesce(c.refunded_at, c.updated_at), 'refund',
        c.amount_refunded_cents::text, c.currency, p.plan_name, null, null
      from stripe_charges c join member_purchases p on p.payment_intent_id = c.payment_intent_id
      where c.amount_refunded_cents > 0
      union all
      -- a: amount in cents, b: currency, c: Stripe's reason, d: status
      select 'dispute:' || d.id, d.opened_at, 'dispute',
        d.amount_cents::text, d.currency, d.reason, d.status, null
      from stripe_disputes d join member_purchases p on p.payment_intent_id = d.payment_intent_id
      union all
      -- a: source, b: entry, c: reason, d: days
      select 'ledger:' || l.sequence, l.occurred_at, 'ledger',
        l.source, l.entry, l.reason, l.days::text, null
      from premium_ledger l where l.user_id = ${userId}
      union all
      -- a: outcome, b: method, c: device, d: client address
      select 'sign-in:' || e.id, e.created_at, 'sign-in',
        e.outcome, e.method, e.device_label, e.client_address, null
      from sign_in_events e where e.user_id = ${userId}
      union all
      -- a: the new address. A code is also "consumed" when something voids it (a newer request,
      -- a reset, an undo), but each of those writes a code or a mail in its own transaction,
      -- hence at the same now(); a confirmed change writes neither.
      select 'email-change:' || o.id, o.consumed_at, 'email change', o.email, null, null, null, null
      from one_time_codes o
      where o.user_id = ${userId} and o.purpose = 'email_change' and o.consumed_at is not null
        and not exists (select 1 from one_time_codes newer where newer.user_id = o.user_id
          and newer.purpose = 'email_change' and newer.created_at = o.consumed_at)
        and not exists (select 1 from outbox_emails m where m.user_id = o.user_id
          and m.created_at = o.consumed_at)
      union all
      -- Every change of the password (by reset or from Account Settings) mails this notice.
      select 'password-change:' || m.id, m.created_at, 'password change', null, null, null, null, null
      from outbox_emails m where m.user_id = ${userId} and m.template = 'password-changed'
      union all
      -- a: template, b: 'sent', 'failed' or null while it waits, c: when it was sent
      select 'mail:' || m.id, m.created_at, 'mail', m.template,
        case when m.sent_at is not null then 'sent' when m.failed_at is not null then 'failed' end,
        to_char(m.sent_at at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"'), null, null
      from outbox_emails m where m.user_id = ${userId}
      union all
      -- a: action, b: reason (a note's text), c: operator's role; actor: his email
      select 'audit:' || e.id, e.occurred_at, 'audit',
        e.action, e.reason, e.actor_role, null, e.actor_email
      from audit_events e where e.target_user_id = ${userId}
        -- Operators reading his pages are in the audit trail, not in his story.
        and e.action not in ('member.view', 'member.timeline', 'member.view-as')
  `;
}
