-- Apple's refund requests answered with the member's consent (ADR 023). A CONSUMPTION_REQUEST
-- notification for a consenting member writes one row here, in the notification's transaction
-- and keyed by its UUID, so five deliveries of it send once; a job sends Apple the Send
-- Consumption Information call, taking due rows under a lease (next_attempt_at), retrying with
-- backoff until give_up_at (12 hours after Apple signed the request), then closing it.
create table app_store_consumption_reports (
  notification_uuid text primary key,
  -- The member the subscription is bound to: his account gone, nothing is left to report.
  user_id uuid not null references users (id) on delete cascade,
  environment text not null,
  -- The transaction Apple asks about (the call's path), and its subscription.
  transaction_id text not null,
  original_transaction_id text not null,
  -- Apple's consumptionRequestReason (UNINTENDED_PURCHASE …), for the log and support.
  reason text,
  requested_at timestamptz not null,
  give_up_at timestamptz not null,
  attempts int not null default 0,
  next_attempt_at timestamptz not null,
  last_error text,
  -- What was sent (the request body, JSON) and the figures it came from.
  sent_request text,
  -- 'sent', 'consent-withdrawn' or 'given-up'; null while open.
  outcome text,
  closed_at timestamptz,
  created_at timestamptz not null default now()
);
create index app_store_consumption_reports_due on app_store_consumption_reports (next_attempt_at)
  where closed_at is null;
