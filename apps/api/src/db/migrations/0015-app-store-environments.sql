-- The App Store numbers transactions apart in the Sandbox and in Production (ADR 013): one
-- transaction id can name a purchase in each, made by different people. An App Store purchase,
-- subscription and pending notification are keyed with their environment, so a Sandbox payload
-- (App Review, TestFlight) never reaches a Production purchase, nor binds its subscription.

-- An App Store purchase names its environment; a Stripe one has none (null), and stays one
-- purchase per payment: nulls are not distinct in its key.
alter table purchases add constraint purchases_environment check (
  (provider = 'Apple') = (environment is not null)
  and (environment is null or environment in ('Sandbox', 'Production'))
);
alter table purchases drop constraint purchases_provider_provider_payment_id_key;
alter table purchases add constraint purchases_payment
  unique nulls not distinct (provider, environment, provider_payment_id);

alter table app_store_subscriptions drop constraint app_store_subscriptions_pkey;
alter table app_store_subscriptions add primary key (environment, original_transaction_id);

-- A notification kept for a subscription bound to no account yet waits for that subscription,
-- in its environment. Null only for one received before this migration that was about no
-- subscription (a TEST) and is applied: its payload, which said, is gone.
alter table app_store_notifications add column environment text;
update app_store_notifications set environment = payload::json ->> 'environment'
where payload is not null;
update app_store_notifications
set environment = app_store_subscriptions.environment
from app_store_subscriptions
where app_store_notifications.environment is null
  and app_store_subscriptions.original_transaction_id = app_store_notifications.original_transaction_id;
drop index app_store_notifications_pending;
create index app_store_notifications_pending
  on app_store_notifications (environment, original_transaction_id)
  where applied_at is null;
