-- The unique constraint (provider, environment, provider_payment_id) that 0030's key, led by the
-- payment id, replaces. Dropped here, in a transaction with this file's record, not in 0030: had
-- 0030 dropped it and then stopped before its record, its run again would drop its own new key to
-- build it again, and for those seconds no unique index would match the grants' `on conflict`
-- (each would fail until built). Dropping a constraint changes no row, but the ACCESS EXCLUSIVE it
-- takes queues behind any open transaction on purchases, and every grant behind it: it gives up
-- after 5 s instead (the start fails and is tried again).
set local lock_timeout = '5s';
alter table purchases drop constraint if exists purchases_payment;
