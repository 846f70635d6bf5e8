-- Mail written before rows named their account (0013) names no one, and the data export found it
-- by the member's current address. So it also found mail that names no one because its account
-- is gone, a deletion's confirmation above all, once someone registered that address again: a
-- former owner's mail in a stranger's export. The export now lists only the mail that names the
-- member; the older mail is given the account that holds its address now, if that account
-- already existed when the mail was written (no mail is written before its account). A deletion's
-- confirmation is about an account that is gone, whoever holds its address: it stays no one's.
update outbox_emails
set user_id = users.id
from users
where outbox_emails.user_id is null
  and outbox_emails.template <> 'account-deleted'
  and lower(outbox_emails.recipient) = lower(users.email)
  and outbox_emails.created_at >= users.created_at;
