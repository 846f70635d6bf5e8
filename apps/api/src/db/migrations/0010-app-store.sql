-- App Store purchases of the iOS app (ADR 013). Each App Store transaction (a subscription's
-- period) is a purchase of provider 'Apple', and its period a ledger row: the member's premium is
-- the later of what his web passes and his App Store periods give.

-- The App Store product of each plan (the day pass has none).
alter table plans add column app_store_product_id text unique;
update plans set app_store_product_id = 'premium.week' where id = '1-week';
update plans set app_store_product_id = 'premium.month' where id = '1-month';
update plans set app_store_product_id = 'premium.year' where id = '1-year';

-- Which environment an App Store purchase was made in (App Review and TestFlight buy in the
-- Sandbox); null for Stripe.
alter table purchases add column environment text;

-- One row per original transaction (a subscription): whom it belongs to, and what the latest
-- signed notification about it said (notifications come in any order; the latest signedDate
-- wins for the status).
create table app_store_subscriptions (
  original_transaction_id text primary key,
  -- Null until the iOS app posts a transaction or a notification names the account.
  user_id uuid references users (id) on delete set null,
  environment text not null,
  product_id text not null,
  auto_renew boolean,
  -- Apple's status: 1 active, 2 expired, 3 billing retry, 4 grace period, 5 revoked.
  status integer,
  grace_period_expires_at timestamptz,
  -- The signedDate of the notification or transaction the fields above come from.
  signed_at timestamptz not null,
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default now()
);
create index app_store_subscriptions_user on app_store_subscriptions (user_id);

-- Every notification received (verified), by its UUID: a redelivery is recognised, and one for a
-- subscription bound to no account yet is kept and applied when the binding arrives.
create table app_store_notifications (
  notification_uuid text primary key,
  notification_type text not null,
  subtype text,
  original_transaction_id text,
  signed_at timestamptz not null,
  -- What the verified notification said (JSON), kept until it is applied.
  payload text,
  received_at timestamptz not null default now(),
  applied_at timestamptz
);
create index app_store_notifications_pending on app_store_notifications (original_transaction_id)
  where applied_at is null;

-- The ledger learns App Store periods: a 'period' row gives a purchase (one App Store
-- transaction) premium until ends_at; several rows for one purchase (a grace period after it)
-- count until the latest.
alter table premium_ledger drop constraint premium_ledger_source;
alter table premium_ledger add constraint premium_ledger_source
  check (source in ('stripe', 'app_store', 'legacy'));
alter table premium_ledger drop constraint premium_ledger_entry;
alter table premium_ledger add constraint premium_ledger_entry
  check (entry in ('grant', 'period', 'revoke', 'reinstate', 'balance'));
