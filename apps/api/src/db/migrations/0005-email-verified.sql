-- When the account's email was last proven to belong to its owner: a link emailed to it was
-- followed (password reset, email change), a password was mailed only to it (account created by
-- a purchase), or Google/Apple vouched for it. Registration with a password proves nothing, so a
-- Google or Apple identity that links to such an account removes that password (an address
-- registered by someone else must not stay a way into the owner's account).
alter table users add column email_verified_at timestamptz;
