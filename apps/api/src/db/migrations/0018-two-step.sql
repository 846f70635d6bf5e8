-- Two-step sign-in with an authenticator app (ADR 018). An account has at most one authenticator:
-- its secret sealed with AES-256-GCM (never stored readable), unconfirmed until a first code from
-- the app proves the member scanned it. `last_used_step` is the 30-second time step of the last
-- code accepted: a code of that step or an earlier one is refused, so a code seen over a shoulder
-- cannot be used again within its window.
create table two_step_authenticators (
  user_id uuid primary key references users (id) on delete cascade,
  sealed_secret text not null,
  confirmed_at timestamptz,
  last_used_step integer,
  created_at timestamptz not null default now()
);

-- The ten recovery codes shown once when two-step sign-in is turned on (or the codes renewed):
-- only their SHA-256 is kept, and each works once.
create table two_step_recovery_codes (
  id uuid primary key default gen_random_uuid(),
  user_id uuid not null references users (id) on delete cascade,
  code_hash text not null,
  used_at timestamptz,
  created_at timestamptz not null default now()
);
create index two_step_recovery_codes_user on two_step_recovery_codes (user_id);

-- A sign-in waiting for its second step: the password (or Google, or Apple) was right, and the
-- member now owes a code. The token handed to the client is kept as its SHA-256; it serves one
-- sign-in, by the method that began it, while the account's credentials are those it was issued
-- at, for 5 minutes, and dies after a few wrong codes.
create table two_step_challenges (
  id uuid primary key default gen_random_uuid(),
  user_id uuid not null references users (id) on delete cascade,
  token_hash text not null unique,
  sign_in_method text not null
    constraint two_step_challenges_sign_in_method check (sign_in_method in ('password', 'google', 'apple')),
  credential_version integer not null,
  wrong_codes integer not null default 0,
  expires_at timestamptz not null,
  consumed_at timestamptz,
  created_at timestamptz not null default now()
);
create index two_step_challenges_user on two_step_challenges (user_id);
create index two_step_challenges_expiry on two_step_challenges (expires_at);
