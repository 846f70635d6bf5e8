-- migrate: outside a transaction
-- A reminder is found by its mail in the outbox. The reminders job's look for mails gone stale
-- starts from the mails not sent yet, and deleting an outbox row (with the account it belongs to)
-- sets its reminder's reference to null: without an index, each of those read every reminder ever
-- written, one row per member and premium end (issue 30: found by EXPLAIN on the database seeded
-- at a million members, docs/benchmarks/scale-explain.txt). The rows whose mail is gone (null)
-- are left out of the index: nothing looks them up.
drop index concurrently if exists premium_expiry_reminders_outbox_email;
create index concurrently premium_expiry_reminders_outbox_email
  on premium_expiry_reminders (outbox_email_id) where outbox_email_id is not null;
