-- Stripe customers of deleted accounts, until Stripe has deleted them (ADR 014). The row is
-- written in the deletion's transaction, so a process that stops right after the commit, or a
-- Stripe that does not answer, leaves it for the next attempt rather than an orphan customer
-- holding the member's email. Only Stripe's id: nothing here names the person.
create table stripe_customer_deletions (
  customer_id text primary key,
  requested_at timestamptz not null default now(),
  attempts int not null default 0,
  next_attempt_at timestamptz not null default now(),
  last_error text
);
create index stripe_customer_deletions_due on stripe_customer_deletions (next_attempt_at);
