-- Where a member is signed in: each session remembers how it began (password, Google, Apple),
-- on what (a readable label from the browser's User-Agent) and when it was last renewed, so the
-- member can see his sessions and end them one by one.
alter table auth_sessions add column sign_in_method text
  constraint auth_sessions_sign_in_method check (sign_in_method in ('password', 'google', 'apple'));
alter table auth_sessions add column device_label text;
alter table auth_sessions add column last_used_at timestamptz not null default now();
-- The pruning job deletes what ended 30 days ago.
create index auth_sessions_ended on auth_sessions (coalesce(revoked_at, expires_at));
