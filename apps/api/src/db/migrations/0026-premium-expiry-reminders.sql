-- The mails sent before a member's premium ends (modules/premium-reminders): one row per member
-- and premium end he was reminded of, written in the transaction of the outbox row that carries
-- the mail. The key makes "never twice for the same end" hold for any number of processes: a
-- second run, here or elsewhere, inserts nothing and so enqueues nothing. The outbox row is kept
-- so a mail still waiting when the end moves can be withdrawn.
create table premium_expiry_reminders (
  user_id uuid not null references users (id) on delete cascade,
  ends_at timestamptz not null,
  outbox_email_id uuid references outbox_emails (id) on delete set null,
  created_at timestamptz not null default now(),
  primary key (user_id, ends_at)
);
