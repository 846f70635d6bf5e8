-- How long a mail is worth trying. One carrying a link is useless once the link has expired
-- (useless_after: retries stop then). The one carrying a guest purchase's generated password is
-- its only copy, so it is never given up (never_give_up: retried hourly past the last attempt).
alter table outbox_emails add column useless_after timestamptz;
alter table outbox_emails add column never_give_up boolean not null default false;
