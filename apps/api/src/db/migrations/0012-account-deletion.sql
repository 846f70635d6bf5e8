-- Deleting an account (ADR 014): the member's row goes, and with it (on delete cascade) his
-- sessions, refresh tokens, codes, identities and premium ledger. His purchases stay for the
-- books, tied to no one: their user_id becomes null. App Store subscriptions were already
-- "on delete set null": they wait unbound, as before any binding, for whoever proves them again.
alter table purchases alter column user_id drop not null;
alter table purchases drop constraint purchases_user_id_fkey;
alter table purchases add constraint purchases_user_id_fkey
  foreign key (user_id) references users (id) on delete set null;
