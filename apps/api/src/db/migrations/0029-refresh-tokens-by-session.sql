-- migrate: outside a transaction
-- A refresh token is found by its session and the SHA-256 of its secret, in one index ordered by
-- session, instead of by the hash alone. The token carries its session's id, signed, so the
-- lookup knows it. The hash is random by nature: its own unique index (1.2 GB at ten million
-- tokens) took each sign-in's entry to a random leaf, seldom in PostgreSQL's buffers at a million
-- members, and its first write after each checkpoint went whole to the write-ahead log (issue
-- 30: a sign-in's p99 at scale 2.2-2.9 x the empty database's, its median within 1.4 x; whether
-- this index was the cause is not settled, docs/benchmarks/scale.md). Ordered
-- by session (time-ordered ids since 0028), a new session's entry goes to the end of the index
-- and a rotated token's beside its predecessor's, the leaf the refresh has just read. The new
-- index also serves the cascade from auth_sessions, so the session-only index goes too.
--
-- Built concurrently: writes go on during the build. Dropping the old unique constraint takes
-- ACCESS EXCLUSIVE on refresh_tokens for an instant (no scan, no rewrite), but it queues behind
-- any open transaction on the table, and every sign-in and refresh would queue behind it: it
-- gives up after 5 s instead (the start fails and is tried again; the file runs again whole).
-- Measured on the seeded database with sign-ins and refreshes going on beside it
-- (scale-migrate-live.mjs): docs/benchmarks/scale.md.
--
-- A run again after a failure past the build drops the good index and builds it again: slower
-- lookups for that while, nothing wrong (the refresh locks its row; no code relies on the hash
-- being unique). Processes of the previous release still running during a rolling deploy look a
-- token up by its hash alone: once the constraint is gone, a scan of the table. Replace them
-- promptly.
drop index concurrently if exists refresh_tokens_session_token;
create unique index concurrently refresh_tokens_session_token
  on refresh_tokens (session_id, token_hash);
set lock_timeout = '5s';
alter table refresh_tokens drop constraint if exists refresh_tokens_token_hash_key;
reset lock_timeout;
drop index concurrently if exists refresh_tokens_session;
