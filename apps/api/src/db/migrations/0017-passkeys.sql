-- Passkeys (WebAuthn credentials, docs/decisions/017-passkeys.md): a member may sign in with one
-- instead of a password. Only the public key is kept; the private key never leaves the member's
-- authenticator (or the password manager that syncs it).
create table passkeys (
  id uuid primary key default gen_random_uuid(),
  user_id uuid not null references users (id) on delete cascade,
  -- The authenticator's credential id (base64url), as the browser names it at sign-in.
  credential_id text not null unique,
  -- The COSE public key (base64url).
  public_key text not null,
  -- The authenticator's signature counter: a sign-in must raise it (when it is not always 0),
  -- or the credential may have been cloned. Up to 2^32 - 1, hence bigint.
  counter bigint not null check (counter >= 0),
  -- How the browser may reach it next time (internal, hybrid, usb ...): excludeCredentials.
  transports text[] not null default '{}',
  -- singleDevice or multiDevice (synced), and whether it is backed up now.
  device_type text not null check (device_type in ('singleDevice', 'multiDevice')),
  backed_up boolean not null,
  name text not null check (length(name) between 1 and 64),
  created_at timestamptz not null default now(),
  last_used_at timestamptz
);
create index passkeys_user on passkeys (user_id);

-- The challenges handed out for a passkey's registration or sign-in, by their SHA-256: each is
-- single use (deleted as it is used), lives 5 minutes and is bound to what it was issued for.
-- A registration's challenge belongs to the member and the session that asked for it.
create table passkey_challenges (
  challenge_hash text primary key,
  purpose text not null check (purpose in ('register', 'login')),
  user_id uuid references users (id) on delete cascade,
  session_id uuid references auth_sessions (id) on delete cascade,
  expires_at timestamptz not null,
  check ((purpose = 'register') = (user_id is not null and session_id is not null))
);
create index passkey_challenges_expiry on passkey_challenges (expires_at);

-- A session may now begin with a passkey.
alter table auth_sessions drop constraint auth_sessions_sign_in_method;
alter table auth_sessions add constraint auth_sessions_sign_in_method
  check (sign_in_method in ('password', 'google', 'apple', 'passkey'));
