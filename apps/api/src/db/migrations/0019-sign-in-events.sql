-- Sign-ins the member can see and hear about (ADR 019): every successful sign-in (any method)
-- and every wrong password for an existing account leaves one row, listed in Account Settings and
-- in the data export. A success from a device and network the account has not signed in from in
-- 30 days mails the owner a "This wasn't me" link; its code (hashed) lives on the row it is about,
-- single use, and dies at `not_me_expires_at`. Rows older than 90 days are deleted by the session
-- pruning job. The method is not constrained here: new sign-in methods (passkeys, a second step)
-- are recorded without a migration of this table, and a recording must never fail a sign-in.
create table sign_in_events (
  id uuid primary key default gen_random_uuid(),
  user_id uuid not null references users (id) on delete cascade,
  created_at timestamptz not null default now(),
  -- The order the events were written in: two in the same instant (the embedded database's clock
  -- counts milliseconds) still list newest first.
  sequence bigint generated always as identity,
  method text not null,
  outcome text not null check (outcome in ('success', 'failure')),
  -- "Chrome on macOS", from the User-Agent (security/device-label.ts).
  device_label text not null,
  -- The client address as the rate limits see it (an IPv4 address, or an IPv6 /64).
  client_address text not null,
  -- Its network: the IPv4 /24 or the IPv6 /48 (security/sign-in-network.ts).
  network text not null,
  not_me_code_hash text unique,
  not_me_expires_at timestamptz,
  not_me_used_at timestamptz
);
-- The member's history, newest first, and "seen from here lately?" at every sign-in.
create index sign_in_events_user_time on sign_in_events (user_id, created_at desc);
-- The pruning job deletes by age.
create index sign_in_events_time on sign_in_events (created_at);
