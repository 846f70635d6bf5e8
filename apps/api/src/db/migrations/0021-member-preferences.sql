-- What a member chose about his account beyond his credentials (issue 27): whether Apple may be
-- told how he used premium when he asks Apple for a refund (off until he turns it on, and kept
-- with the time he gave or withdrew it: Apple asks that consent be given and recorded), and
-- whether he is mailed before his premium ends (on: the mail is about what he paid for, and
-- every such mail carries a one-click way out).
alter table users add column apple_consumption_consent boolean not null default false;
alter table users add column apple_consumption_consent_changed_at timestamptz;
alter table users add column expiry_reminders boolean not null default true;
