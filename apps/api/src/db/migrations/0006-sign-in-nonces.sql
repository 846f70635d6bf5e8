-- Sign-in nonces already used (their SHA-256), kept until they would have expired anyway.
create table used_sign_in_nonces (
  nonce_hash text primary key,
  expires_at timestamptz not null
);
create index used_sign_in_nonces_expiry on used_sign_in_nonces (expires_at);
