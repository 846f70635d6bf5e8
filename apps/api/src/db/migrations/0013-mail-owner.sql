-- Mail about an account names it (ADR 014): deleting the account deletes its mail, to whichever
-- address it went (the one he moved away from included, whose notice named the new one), and no
-- one else's mail, whoever holds those addresses later. Rows written before name no one; the
-- deletion finds those by address, as it did.
alter table outbox_emails add column user_id uuid references users (id) on delete cascade;
create index outbox_emails_user_id on outbox_emails (user_id) where user_id is not null;
