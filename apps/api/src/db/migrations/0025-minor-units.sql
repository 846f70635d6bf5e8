-- Amounts are stored in the minor units of their currency, as Stripe counts them (docs/payments.md:
-- "Amounts and currencies"): 1200 JPY is ¥1,200, 2750 KWD is 2.750 dinars. Stripe's rows always
-- were. App Store rows were written as Apple's milliunits divided by 10, which is minor units only
-- for two-decimal currencies: a ¥1,200 purchase read 120000, a KWD 2.750 one 275. This rewrites
-- those rows (the lists are @kegel/contract's money.ts); two-decimal rows do not change.
update purchases
set amount_cents = amount_cents / 100
where provider = 'Apple'
  and currency in ('bif', 'clp', 'djf', 'gnf', 'jpy', 'kmf', 'krw', 'mga', 'pyg', 'rwf', 'ugx',
                   'vnd', 'vuv', 'xaf', 'xof', 'xpf');

update purchases
set amount_cents = amount_cents * 10
where provider = 'Apple'
  and currency in ('bhd', 'jod', 'kwd', 'omr', 'tnd');

-- Refunds Stripe reported and that then failed (charge.refund.updated with status failed: the
-- card holder's bank sent the money back to us). Each is counted once, however many events tell
-- it; a charge event older than the failure still counts the failed refund, and is read less it.
create table stripe_failed_refunds (
  refund_id text primary key,
  payment_intent_id text not null,
  amount_cents integer not null check (amount_cents >= 0),
  currency text not null,
  failed_at timestamptz not null,
  created_at timestamptz not null default now()
);
create index stripe_failed_refunds_payment on stripe_failed_refunds (payment_intent_id);
