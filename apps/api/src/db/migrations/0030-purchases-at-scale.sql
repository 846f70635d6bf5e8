-- migrate: outside a transaction
-- A purchase wrote an entry into a random leaf of five indexes: its id (version 4), the member's,
-- Stripe's payment intent, the (provider, environment, payment id) unique key, and the payment
-- id's own index, which the desk and the App Store read by the payment id alone. At three million
-- purchases those leaves are seldom in PostgreSQL's buffers, and each one's first write after a
-- checkpoint goes whole into the write-ahead log (issue 30: the Stripe webhook's grant at a
-- million members was 2.5-3.7 x its p99 on an empty database, docs/benchmarks/scale.md).
-- - New purchases get time-ordered ids (uuid_v7, 0028): their primary key entries, and their
--   ledger grant's entry in premium_ledger_one_grant, go to the end of those indexes. Existing
--   rows keep their ids.
-- - The unique key is built again with the payment id first, so that it also serves every read
--   by the payment id alone, and the payment id's own index goes. Of the leaves a new purchase
--   writes into, two are random now (the member's index and the payment intent's), and the
--   unique key's is the one the grant's own `on conflict` check has just read. The conflict
--   target names the same three columns, in any order.
-- - The reminders job (modules/premium-reminders) finds the premium ends of the next 72 hours
--   through a new index of the passes' and support grants' ends: it scanned all of users, 1.8 s
--   at a million members, a minute after every start and every 15 minutes. The index holds the
--   member and the purchase's time too, so the job asks whether each end was reminded of already
--   without reading a purchase or a member (67 ms at a million members, where ten thousand ends
--   fall in the next 72 hours). Its entries go where the new passes end (a day, a week, a month,
--   a year from now): a few leaves, not random ones.
--
-- Built concurrently: writes go on during the build. The `alter table` takes ACCESS EXCLUSIVE on
-- purchases for an instant (no change to any row), but queues behind any open transaction on the
-- table and every grant behind it: it gives up after 5 s instead (the start fails and is tried
-- again, and the file runs again whole). The old unique constraint stays until 0032, which drops it
-- in a transaction with its own record: a run again of this file drops and builds the new key
-- while the old one still guards the payments. While the new key builds, two deliveries of one
-- payment at the same instant can meet it as a duplicate key rather than a conflict to skip (an
-- index being built is checked but not yet used for ON CONFLICT): the grant runs again on a
-- unique violation and then finds the payment recorded.
set lock_timeout = '5s';
alter table purchases alter column id set default uuid_v7();
reset lock_timeout;
drop index concurrently if exists purchases_payment_key;
create unique index concurrently purchases_payment_key
  on purchases (provider_payment_id, provider, environment) nulls not distinct;
drop index concurrently if exists purchases_provider_payment;
drop index concurrently if exists purchases_ending;
create index concurrently purchases_ending on purchases (expires_at) include (user_id, created_at)
  where revoked_at is null and provider in ('Stripe', 'Support');
