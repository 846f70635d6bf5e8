-- The premium plans sold on /purchase. Money is integer cents; the currency is lower-case
-- ISO 4217 as Stripe spells it.
create table plans (
  id text primary key,
  name text not null,
  days integer not null check (days > 0),
  price_cents integer not null check (price_cents >= 0),
  currency text not null default 'usd' check (currency = lower(currency)),
  created_at timestamptz not null default now()
);

-- The four plans on sale, with demo prices. Stable ids so links and payments can name them.
insert into plans (id, name, days, price_cents) values
  ('1-day', '1 Day', 1, 299),
  ('1-week', '1 Week', 7, 999),
  ('1-month', '1 Month', 30, 2999),
  ('1-year', '1 Year', 365, 11999);
