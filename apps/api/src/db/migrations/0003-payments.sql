-- Purchases of premium (Stripe on the web, Apple in the mobile app) and the Stripe events seen.

create table purchases (
  id uuid primary key default gen_random_uuid(),
  user_id uuid not null references users (id) on delete cascade,
  plan_id text references plans (id),
  plan_name text not null,
  provider text not null check (provider in ('Stripe', 'Apple')),
  -- The provider's id of the payment (a Checkout Session id for Stripe): one grant per payment.
  provider_payment_id text not null,
  amount_cents integer not null check (amount_cents >= 0),
  currency text not null,
  days integer not null check (days > 0),
  -- The premium period this purchase added: from the later of now and the previous end.
  starts_at timestamptz not null,
  expires_at timestamptz not null,
  created_at timestamptz not null default now(),
  unique (provider, provider_payment_id)
);
create index purchases_user on purchases (user_id, created_at desc);

-- Every Stripe event handled, so a redelivered event is recognised and answered at once.
create table stripe_events (
  id text primary key,
  type text not null,
  received_at timestamptz not null default now()
);

-- One Stripe customer per user.
alter table users add column stripe_customer_id text unique;
