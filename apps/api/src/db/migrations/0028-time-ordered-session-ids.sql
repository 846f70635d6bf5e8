-- Sessions, their refresh tokens and sign-in events get ids that begin with the time (UUID
-- version 7: 48 bits of Unix milliseconds, then the version, then 74 random bits, as RFC 9562
-- lays it out). A random id (version 4) puts each new row's entry at a random leaf of every index
-- on it: with ten million sessions those leaves are not in PostgreSQL's buffers, and a sign-in
-- read and rewrote five of them (the three primary keys and refresh_tokens' session_id, beside
-- the token hash's, random by nature) where an empty database finds them all in memory (issue
-- 30: a sign-in's p99 at a million members was 1.7-2.5 x its p99 on an empty database). Now they
-- go to the same few leaves at the end of the time range. The ids stay unguessable (74 random
-- bits) and only say when the row was made, which a session's refresh token's expiry and an
-- event's own time already tell. Existing rows keep their ids; only the defaults change (no table
-- rewrite, the lock is held for an instant).
create function uuid_v7() returns uuid
language sql volatile parallel safe
as $$
  -- gen_random_uuid's 16 bytes with the first 6 replaced by the time, and the version set to 7
  -- (bits 52 and 53 of the bytea are the version nibble's two low bits; its variant is kept).
  select encode(
    set_bit(
      set_bit(
        overlay(
          uuid_send(gen_random_uuid())
          placing substring(int8send(floor(extract(epoch from clock_timestamp()) * 1000)::bigint) from 3)
          from 1 for 6
        ),
        52, 1
      ),
      53, 1
    ),
    'hex'
  )::uuid
$$;

alter table auth_sessions alter column id set default uuid_v7();
alter table refresh_tokens alter column id set default uuid_v7();
alter table sign_in_events alter column id set default uuid_v7();
