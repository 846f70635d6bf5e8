-- Accounts, sign-in sessions, refresh tokens, emailed one-time codes and the mail outbox.

create table users (
  id uuid primary key default gen_random_uuid(),
  -- As the person typed it (trimmed). Unique without regard to case; plus-addresses stay distinct.
  email text not null check (length(email) <= 254),
  -- argon2id PHC string; null for an account that only signs in with Google or Apple.
  password_hash text,
  subscription_end_date timestamptz,
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default now()
);
create unique index users_email_unique on users (lower(email));

-- One row per sign-in. Lives at most 30 days from sign-in, whatever the refreshes.
create table auth_sessions (
  id uuid primary key default gen_random_uuid(),
  user_id uuid not null references users (id) on delete cascade,
  created_at timestamptz not null default now(),
  expires_at timestamptz not null,
  revoked_at timestamptz,
  revoked_reason text
);
create index auth_sessions_user on auth_sessions (user_id);

-- Every refresh token ever issued in a session, by the SHA-256 of its secret (never the secret).
create table refresh_tokens (
  id uuid primary key default gen_random_uuid(),
  session_id uuid not null references auth_sessions (id) on delete cascade,
  token_hash text not null unique,
  created_at timestamptz not null default now(),
  -- Set when this token was exchanged for its successor.
  rotated_at timestamptz
);
create index refresh_tokens_session on refresh_tokens (session_id);

-- Codes sent in password-reset and email-change links, by the SHA-256 of the code.
create table one_time_codes (
  id uuid primary key default gen_random_uuid(),
  user_id uuid not null references users (id) on delete cascade,
  purpose text not null check (purpose in ('password_reset', 'email_change')),
  -- The address the code was issued for: the account's for a reset, the new one for a change.
  email text not null,
  code_hash text not null unique,
  created_at timestamptz not null default now(),
  expires_at timestamptz not null,
  -- Set when used, or when a newer code of the same purpose replaced it.
  consumed_at timestamptz
);
create index one_time_codes_user on one_time_codes (user_id, purpose);

-- Mail to send, written in the same transaction as the change it tells about. The payload is
-- encrypted (it can hold a one-time link) and erased once sent.
create table outbox_emails (
  id uuid primary key default gen_random_uuid(),
  recipient text not null,
  template text not null,
  encrypted_payload text,
  created_at timestamptz not null default now(),
  attempts integer not null default 0,
  next_attempt_at timestamptz not null default now(),
  locked_until timestamptz,
  sent_at timestamptz,
  failed_at timestamptz,
  last_error text
);
create index outbox_emails_due on outbox_emails (next_attempt_at) where sent_at is null and failed_at is null;
