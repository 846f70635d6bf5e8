-- The support desk (ADR 020): operators with a role, the second factor a session was opened
-- with, an append-only audit trail whose rows are chained by hash, and premium days granted by
-- an operator (a purchase of provider 'Support', granted and removed through the ledger).

-- Granted and taken only by `npm run operator` on the server: no API call writes here.
create table operators (
  user_id uuid primary key references users (id) on delete cascade,
  role text not null constraint operators_role check (role in ('support', 'admin')),
  granted_at timestamptz not null default now()
);

-- When the session's owner last proved a second factor in it (the two-step code at sign-in, a
-- passkey sign-in, or a confirmation on the support desk): the desk asks for one within 12 hours.
alter table auth_sessions add column second_factor_at timestamptz;

-- One row per operator action and per member page an operator opened, written in the
-- transaction of the change. Each row's hash covers the row and the previous row's hash, so a
-- row edited, removed or slipped in shows (`npm run audit:verify`). Emails are kept beside an
-- HMAC of each (the hash covers the HMAC): deleting a member replaces his email by a pseudonym
-- and the chain still verifies, while any other edit of an email shows.
create table audit_events (
  sequence bigint generated always as identity primary key,
  id uuid not null default gen_random_uuid() unique,
  occurred_at timestamptz not null,
  -- Null for the command line (roles granted on the server).
  actor_id uuid,
  actor_email text not null,
  actor_email_digest text not null,
  -- 'support', 'admin' or 'command line'.
  actor_role text not null,
  -- 'member.view', 'grant.add', 'refund.create', 'operator.grant', ...
  action text not null,
  target_user_id uuid,
  target_email text,
  target_email_digest text,
  reason text,
  -- What changed, JSON { before, after } (text: read back as written, see stripe_parked_events).
  changes text,
  request_id text,
  client_address text,
  previous_hash text not null,
  hash text not null unique,
  -- Set when the emails of a deleted account were replaced by a pseudonym.
  pseudonymised_at timestamptz
);
create index audit_events_target on audit_events (target_user_id, sequence desc);
create index audit_events_actor on audit_events (actor_id, sequence desc);
create index audit_events_action on audit_events (action, sequence desc);
create index audit_events_time on audit_events (occurred_at desc);

-- The application never edits or deletes a row; the database refuses it too, but for the
-- pseudonym of a deleted account's email. (Someone with the power to drop this trigger can
-- still edit a row: the hash chain is what shows it.)
create function audit_events_append_only() returns trigger language plpgsql as $$
begin
  if tg_op = 'DELETE' then
    raise exception 'audit rows cannot be deleted';
  end if;
  if (new.sequence, new.id, new.occurred_at, new.actor_id, new.actor_email_digest,
      new.actor_role, new.action, new.target_user_id, new.target_email_digest, new.reason,
      new.changes, new.request_id, new.client_address, new.previous_hash, new.hash)
    is distinct from
     (old.sequence, old.id, old.occurred_at, old.actor_id, old.actor_email_digest,
      old.actor_role, old.action, old.target_user_id, old.target_email_digest, old.reason,
      old.changes, old.request_id, old.client_address, old.previous_hash, old.hash)
    or new.pseudonymised_at is null then
    raise exception 'audit rows cannot be changed, only pseudonymised';
  end if;
  return new;
end
$$;
create trigger audit_events_append_only before update or delete on audit_events
  for each row execute function audit_events_append_only();

-- Premium days granted by an operator: each grant is a purchase of provider 'Support' (so the
-- member sees it in his Purchase History, with its reason) and a ledger grant of source
-- 'support'; removing it is a ledger revocation. The idempotency key makes a repeated request
-- (or two clicks at once) grant once.
alter table purchases drop constraint purchases_provider_check;
alter table purchases add constraint purchases_provider_check
  check (provider in ('Stripe', 'Apple', 'Support'));
alter table premium_ledger drop constraint premium_ledger_source;
alter table premium_ledger add constraint premium_ledger_source
  check (source in ('stripe', 'app_store', 'support', 'legacy'));

create table operator_grants (
  id uuid primary key default gen_random_uuid(),
  user_id uuid not null references users (id) on delete cascade,
  purchase_id uuid not null unique references purchases (id) on delete cascade,
  idempotency_key text not null,
  days integer not null check (days > 0),
  reason text not null,
  granted_by uuid,
  granted_at timestamptz not null default now(),
  removed_at timestamptz,
  removed_by uuid,
  removed_reason text,
  unique (user_id, idempotency_key)
);

-- The support desk finds members by the start of their email, in any case.
create index users_email_prefix on users (lower(email) text_pattern_ops);

-- The desk's search and a member's timeline look these up by id alone (their keys and the
-- existing indexes start with the environment, or hold only unapplied rows).
create index app_store_subscriptions_original on app_store_subscriptions (original_transaction_id);
create index app_store_notifications_transaction
  on app_store_notifications (original_transaction_id, signed_at);
create index purchases_provider_payment on purchases (provider_payment_id);
