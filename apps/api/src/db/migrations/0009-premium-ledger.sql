-- Premium from a ledger (ADR 012). Every grant and every revocation of premium is a row of
-- premium_ledger, and users.subscription_end_date is recomputed from it in the transaction of any
-- change (modules/premium/ledger.ts): a refunded purchase can be taken out and the passes after it
-- shift back. Refunds and disputes are kept per Stripe payment, whatever order their events come
-- in; a paid checkout for a plan this server does not know is parked until an operator replays it.

-- What each Stripe payment was, beyond the Checkout Session id: the PaymentIntent (refunds and
-- disputes name it), and the plan's price at the time, so a payment that differs from it shows.
alter table purchases add column payment_intent_id text;
alter table purchases add column listed_price_cents integer;
alter table purchases add column listed_currency text;
-- Derived from the ledger like the period itself: set while the purchase is taken out.
alter table purchases add column revoked_at timestamptz;
alter table purchases add column revoked_reason text;
create unique index purchases_payment_intent on purchases (payment_intent_id);

create table premium_ledger (
  -- The order entries were written in: a pass stacks after the premium granted before it.
  sequence bigint generated always as identity primary key,
  user_id uuid not null references users (id) on delete cascade,
  source text not null constraint premium_ledger_source check (source in ('stripe', 'legacy')),
  entry text not null
    constraint premium_ledger_entry check (entry in ('grant', 'revoke', 'reinstate', 'balance')),
  purchase_id uuid references purchases (id) on delete cascade,
  -- A pass's days, added after the later of occurred_at (when it was granted) and the end before it.
  days integer check (days > 0),
  -- A balance's premium end (null: none): the end as it stood before the ledger, when the
  -- purchases alone do not explain it.
  ends_at timestamptz,
  -- 'payment', 'refund', 'dispute lost', 'dispute won', 'before the ledger'.
  reason text not null,
  -- When it happened: the grant, the refund, the dispute's close.
  occurred_at timestamptz not null,
  recorded_at timestamptz not null default now(),
  constraint premium_ledger_purchase check ((entry = 'balance') = (purchase_id is null)),
  constraint premium_ledger_days check ((entry = 'grant') = (days is not null))
);
create index premium_ledger_user on premium_ledger (user_id, sequence);
create unique index premium_ledger_one_grant on premium_ledger (purchase_id) where entry = 'grant';

-- The ledger of the purchases made so far, in the order they were granted: the order of their
-- starts, since each began at or after the end of the ones granted before it (their transactions
-- may have begun in another order). A purchase's start was max(its payment, the end before it);
-- its start itself as the grant's time gives the same period. Where the end before it was later
-- than its start (premium cut short by hand between two purchases), a balance just before it
-- sets the end to its start, so its period is reproduced too. Days are counted as the ledger
-- counts them, 24 hours each (the old SQL added calendar days, an hour off across a summer-time
-- change on a server in such a zone; the balance below then keeps the member's end exact).
with ordered as (
  select
    purchases.*,
    row_number() over member_order as position,
    lag(starts_at + make_interval(hours => 24 * days)) over member_order as end_before
  from purchases
  window member_order as (partition by user_id order by starts_at, created_at, id)
),
entries as (
  select user_id, 'legacy' as source, 'balance' as entry, null::uuid as purchase_id,
    null::integer as days, starts_at as ends_at, 'before the ledger' as reason,
    starts_at as occurred_at, position * 2 as place
  from ordered
  where end_before > starts_at
  union all
  select user_id, 'stripe', 'grant', id, days, null, 'payment', starts_at, position * 2 + 1
  from ordered
)
insert into premium_ledger (user_id, source, entry, purchase_id, days, ends_at, reason, occurred_at)
select user_id, source, entry, purchase_id, days, ends_at, reason, occurred_at
from entries
order by user_id, place;

-- A member whose stored end the purchases do not explain (set by hand, say) keeps it: a balance
-- after his purchases sets the end to what it is now.
insert into premium_ledger (user_id, source, entry, ends_at, reason, occurred_at)
select users.id, 'legacy', 'balance', users.subscription_end_date, 'before the ledger', now()
from users
left join lateral (
  select starts_at + make_interval(hours => 24 * days) as ends_at
  from purchases
  where purchases.user_id = users.id
  order by starts_at desc, created_at desc, id desc
  limit 1
) as from_purchases on true
where users.subscription_end_date is distinct from from_purchases.ends_at;

-- What Stripe said of the charge behind a payment, by PaymentIntent: recorded even before the
-- purchase is (events come in any order), and applied when it is.
create table stripe_charges (
  payment_intent_id text primary key,
  charge_id text not null,
  amount_cents integer not null,
  amount_refunded_cents integer not null default 0,
  currency text not null,
  -- The first time Stripe said the whole amount was refunded.
  refunded_at timestamptz,
  updated_at timestamptz not null default now()
);

create table stripe_disputes (
  id text primary key,
  payment_intent_id text not null,
  charge_id text not null,
  amount_cents integer not null,
  currency text not null,
  reason text not null,
  -- Stripe's status: needs_response, under_review, won, lost, warning_closed, …
  status text not null,
  opened_at timestamptz not null,
  closed_at timestamptz,
  updated_at timestamptz not null default now()
);
create index stripe_disputes_payment on stripe_disputes (payment_intent_id);

-- Paid checkouts that could not be granted yet (a plan this server does not know): the verified
-- event, kept until `npm run payments:replay -- <event id>` grants it.
create table stripe_parked_events (
  event_id text primary key,
  type text not null,
  -- The event's JSON as verified. Text, not jsonb: read back through the query builder's
  -- camelCase mapping, a jsonb object would come back with Stripe's field names changed.
  payload text not null,
  reason text not null,
  parked_at timestamptz not null default now(),
  replayed_at timestamptz
);
