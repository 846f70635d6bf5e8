-- What an emailed code may still do once the account's credentials changed. Every password reset
-- or change, email change and "this wasn't me" raises the account's credential version; a reset
-- or email-change code works only while the version it was issued at is still the account's, so
-- a link sent before the owner took the account back (to an attacker's mailbox, or to an address
-- the account no longer has) is dead even if it was somehow left open.
alter table users add column credential_version integer not null default 0;
alter table one_time_codes add column credential_version integer not null default 0;

-- The "this wasn't me" link of the notice sent to the old address when an email change is asked
-- for. Its code is mailed to the old address (`email`) and remembers the address asked for
-- (`requested_email`), so it can cancel the change, or undo it if it was already confirmed.
alter table one_time_codes add column requested_email text;
alter table one_time_codes drop constraint one_time_codes_purpose_check;
alter table one_time_codes add constraint one_time_codes_purpose_check
  check (purpose in ('password_reset', 'email_change', 'email_change_cancel'));
