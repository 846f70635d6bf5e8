-- Jobs that must run in one process at a time take a lease (apps/api/src/jobs/job-lease.ts): the
-- job's row names who holds it and until when. A process that stops mid-run holds it only until
-- then; the next process takes it over.
create table job_leases (
  job_name text primary key,
  holder text not null,
  leased_until timestamptz not null
);

-- Where the recovery of App Store notifications (ADR 022) is in Apple's notification history,
-- one row per history it reads (Apple's Production and Sandbox hosts, or one stand-in): the time
-- up to which the history was read through, and, while a walk through its pages is under way,
-- that walk's window and the next page's token, so a run that stops mid-way resumes there.
create table app_store_history_cursors (
  source text primary key,
  read_until timestamptz,
  window_start timestamptz,
  window_end timestamptz,
  pagination_token text,
  updated_at timestamptz not null default now()
);
