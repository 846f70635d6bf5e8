-- The language a member reads the product and its mails in (issue 29): set at registration from
-- the page he signed up on, changed in Account Settings. Null: never chosen (an account older than
-- languages), read as English. No check constraint on the codes: a fourth language must not need a
-- migration; the contract's LocaleSchema validates what is written.
alter table users add column locale text;
