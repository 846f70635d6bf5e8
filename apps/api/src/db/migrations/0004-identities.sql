-- Google and Apple identities of an account (docs/decisions/005-social-sign-in.md). An identity
-- is its provider's `sub`: the same `sub` always reaches the same account, whatever email the
-- provider sends (or does not).

create table user_identities (
  provider text not null check (provider in ('google', 'apple')),
  subject text not null,
  user_id uuid not null references users (id) on delete cascade,
  -- The email the provider last gave, as given (Apple private-relay addresses included).
  email text,
  created_at timestamptz not null default now(),
  last_sign_in_at timestamptz not null default now(),
  primary key (provider, subject)
);
create index user_identities_user on user_identities (user_id);
