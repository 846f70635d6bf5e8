// EXPLAIN (ANALYZE, BUFFERS) of every query the calls of scale.mjs run, on a database seeded by
// seed-scale.mjs (after a bench run, so the bench's members and operator exist), with the
// parameters those calls send. Writes run inside a transaction that is rolled back. Prints each
// plan and, per query, whether any table is read by a sequential scan.
//
//   DATABASE_URL=postgres://postgres@127.0.0.1:5432/kegel_scale node scripts/bench/scale-explain.mjs \
//     > docs/benchmarks/scale-explain.txt
//
// The statements are the product's, as PostgreSQL received them (log_statement = all during a
// bench run); the foreign keys' cascades (deleting a session deletes its refresh tokens) run
// inside the DELETE and show as triggers' times, not plans.
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('../..', import.meta.url));
const require = createRequire(path.join(root, 'apps/api/package.json'));
const pg = require('pg');

const client = new pg.Client({ connectionString: process.env.DATABASE_URL });
await client.connect();
const one = async (text, parameters = []) => (await client.query(text, parameters)).rows[0];

const member = await one(`select id from users where lower(email) = 'bench.member@example.com'`);
const operator = await one(
  `select id from users where lower(email) = 'bench.operator@example.com'`,
);
const grantMember = await one(
  `select id from users where lower(email) = 'bench.grant.7@example.com'`,
);
const memberSession = await one(
  `select id from auth_sessions where user_id = $1 and revoked_at is null and expires_at > now()
   order by created_at desc limit 1`,
  [member.id],
);
const operatorSession = await one(
  `select id from auth_sessions where user_id = $1 order by created_at desc limit 1`,
  [operator.id],
);
const memberToken = await one(
  `select token_hash from refresh_tokens where session_id = $1 order by created_at desc limit 1`,
  [memberSession.id],
);
const checkoutSession = `cs_live_${(await one(`select md5('checkout-1') as id`)).id}`;
const later = new Date(Date.now() + 30 * 86_400_000);
const ended = new Date(Date.now() - 30 * 86_400_000);
const eventsBefore = new Date(Date.now() - 90 * 86_400_000);

const queries = [
  [
    'every signed-in call (profile): the session and its account',
    `select u.id, u.email, u.subscription_end_date, u.password_hash is not null as has_password,
       u.locale, exists (select 1 from two_step_authenticators t
         where t.user_id = u.id and t.confirmed_at is not null) as two_step_enabled
     from auth_sessions s join users u on u.id = s.user_id
     where s.id = $1 and s.user_id = $2 and s.revoked_at is null and s.expires_at > now()`,
    [memberSession.id, member.id],
  ],
  [
    'Purchase History',
    `select purchases.plan_name, purchases.provider, purchases.days, purchases.created_at,
       purchases.expires_at, purchases.revoked_at, purchases.revoked_reason,
       operator_grants.days as grant_days, operator_grants.reason as grant_reason
     from purchases left join operator_grants on operator_grants.purchase_id = purchases.id
     where purchases.user_id = $1 order by purchases.created_at desc`,
    [member.id],
  ],
  [
    'sign-in: the account by email, with whether two-step is on (sign_in_account)',
    `select u.id, u.password_hash, u.credential_version,
       exists (select 1 from two_step_authenticators t
         where t.user_id = u.id and t.confirmed_at is not null) as two_step_on
     from users u where lower(u.email) = lower($1)`,
    ['bench.member@example.com'],
  ],
  [
    'sign-in: open the session and its refresh token, and record a familiar sign-in (open_session_recording; write, rolled back)',
    `with account as (
       select id from users where id = $1 and ($2::int is null or credential_version = $2::int)
     ), session as (
       insert into auth_sessions (user_id, expires_at, sign_in_method, device_label, second_factor_at)
       select id, $3::timestamptz, 'password', $4::text, null from account returning id, expires_at
     ), token as (
       insert into refresh_tokens (session_id, token_hash) select id, md5('x') || md5('y') from session
     ), event as (
       insert into sign_in_events (user_id, method, outcome, device_label, client_address, network)
       select $1::uuid, 'password', 'success', $4::text, '127.0.0.1', $5::text
       from session
       where exists (
           select 1 from sign_in_events
           where user_id = $1::uuid and outcome = 'success'
             and device_label = $4::text and network = $5::text
             and created_at > now() - make_interval(days => 30)
         )
         or not exists (select 1 from sign_in_events where user_id = $1::uuid and outcome = 'success')
       returning 1
     )
     select id, expires_at, exists (select 1 from event) as is_sign_in_recorded from session`,
    [member.id, 0, later, '', '127.0.0.0/24'],
  ],
  [
    'refresh: the token by its session and hash, locked (refresh_tokens_session_token, 0029)',
    `select refresh_tokens.id, refresh_tokens.session_id, refresh_tokens.rotated_at,
       auth_sessions.user_id, auth_sessions.expires_at, auth_sessions.revoked_at,
       auth_sessions.expires_at <= now() as is_expired
     from refresh_tokens join auth_sessions on auth_sessions.id = refresh_tokens.session_id
     where refresh_tokens.session_id = $1 and refresh_tokens.token_hash = $2
     for update of refresh_tokens`,
    [memberSession.id, memberToken.token_hash],
  ],
  [
    'sign-in: recorded apart if seen from this device and network lately, when opening with it failed (insert_familiar_sign_in; write, rolled back)',
    `insert into sign_in_events (user_id, method, outcome, device_label, client_address, network)
     select $1::uuid, 'password', 'success', $2::text, '127.0.0.1', $3::text
     where exists (
         select 1 from sign_in_events
         where user_id = $1::uuid and outcome = 'success'
           and device_label = $2::text and network = $3::text
           and created_at > now() - make_interval(days => 30)
       )
       or not exists (select 1 from sign_in_events where user_id = $1::uuid and outcome = 'success')
     returning created_at`,
    [member.id, '', '127.0.0.0/24'],
  ],
  [
    'sign-in: recorded with its notice, from somewhere new (insert_sign_in_event; write, rolled back)',
    `insert into sign_in_events
       (user_id, method, outcome, device_label, client_address, network, not_me_code_hash,
         not_me_expires_at)
     values ($1, 'password', 'success', '', '127.0.0.1', '127.0.0.0/24', md5('explain'),
       now() + make_interval(secs => 604800))
     returning created_at`,
    [member.id],
  ],
  [
    'webhook grant: the event seen before?',
    `insert into stripe_events (id, type) values ('evt_explain', 'checkout.session.completed')
     on conflict (id) do nothing returning id`,
  ],
  [
    'webhook grant: the member locked',
    `select id from users where id = $1 for update`,
    [grantMember.id],
  ],
  [
    'webhook grant: the purchase (write, rolled back)',
    `insert into purchases (user_id, plan_id, plan_name, provider, provider_payment_id,
       payment_intent_id, amount_cents, currency, listed_price_cents, listed_currency, days,
       starts_at, expires_at)
     values ($1, '1-week', '1 Week', 'Stripe', 'cs_test_explain', 'pi_explain', 999, 'usd', 999,
       'usd', 7, now(), now())
     on conflict (provider, environment, provider_payment_id) do nothing returning id`,
    [grantMember.id],
  ],
  [
    "webhook grant: the member's ledger",
    `select source, entry, purchase_id, days, ends_at, reason, occurred_at from premium_ledger
     where user_id = $1 order by sequence`,
    [grantMember.id],
  ],
  [
    "webhook grant: a purchase's period written",
    `update purchases set starts_at = starts_at where id =
       (select id from purchases where user_id = $1 limit 1)`,
    [member.id],
  ],
  [
    'webhook grant: a reminder mail to withdraw?',
    `select outbox_emails.id from premium_expiry_reminders
     inner join outbox_emails on outbox_emails.id = premium_expiry_reminders.outbox_email_id
     where outbox_emails.sent_at is null and outbox_emails.failed_at is null
       and premium_expiry_reminders.user_id = $1
       and premium_expiry_reminders.ends_at is distinct from $2::timestamptz`,
    [grantMember.id, later],
  ],
  [
    'webhook grant: refunded or lost already?',
    `select refunded_at from stripe_charges where payment_intent_id = 'pi_explain'`,
  ],
  [
    'webhook grant: disputes',
    `select closed_at from stripe_disputes where payment_intent_id = 'pi_explain'
       and status = 'lost' order by closed_at`,
  ],
  [
    "desk: the operator's access (every /ops call)",
    `select o.role, o.granted_at, s.second_factor_at,
       greatest((select max(t.confirmed_at) from two_step_authenticators t where t.user_id = s.user_id),
         (select max(p.created_at) from passkeys p where p.user_id = s.user_id)) as newest_factor_at,
       exists (select 1 from two_step_authenticators t
         where t.user_id = s.user_id and t.confirmed_at is not null) as has_two_step,
       exists (select 1 from passkeys p where p.user_id = s.user_id) as has_passkey
     from auth_sessions as s left join operators as o on o.user_id = s.user_id
     where s.id = $1 and s.user_id = $2`,
    [operatorSession.id, operator.id],
  ],
  ...['bench.grant.1%', 'olivia.12%', 'olivia%'].map((prefix) => [
    `desk search: email prefix '${prefix}'`,
    `select users.id, users.email, users.created_at, users.subscription_end_date from users
     where lower(users.email) like $1 order by lower(users.email) using ~<~ limit 20`,
    [prefix],
  ]),
  [
    'desk search: Checkout Session id',
    `select users.id, users.email, users.created_at, users.subscription_end_date from users
     where exists (select purchases.id from purchases where purchases.user_id = users.id
       and purchases.provider = 'Stripe' and purchases.provider_payment_id = $1)
     order by users.email limit 20`,
    [checkoutSession],
  ],
  [
    'desk search: App Store original transaction id (also what an Apple order id leads to)',
    `select users.id, users.email, users.created_at, users.subscription_end_date from users
     where users.id in (
       select app_store_subscriptions.user_id from app_store_subscriptions
       where app_store_subscriptions.original_transaction_id in ($1)
       union
       select purchases.user_id from purchases
       where purchases.provider = 'Apple' and purchases.provider_payment_id in ($1))
     order by users.email limit 20`,
    ['2000000000000003'],
  ],
  [
    'pruning: a batch of 50 ended sessions, first read (the job takes 20 at most)',
    `select id from auth_sessions where coalesce(revoked_at, expires_at) < $1
     order by coalesce(revoked_at, expires_at) limit 50`,
    [ended],
  ],
  [
    'pruning: then those sessions by their key, their refresh tokens counted (read before the DELETE)',
    `select count(refresh_tokens.created_at) from auth_sessions
     left join refresh_tokens on refresh_tokens.session_id = auth_sessions.id
     where auth_sessions.id in (select id from auth_sessions
       where coalesce(revoked_at, expires_at) < $1
       order by coalesce(revoked_at, expires_at) limit 50)`,
    [ended],
  ],
  [
    'pruning: then the DELETE of those, still ended (write, rolled back)',
    `delete from auth_sessions where id in (select id from auth_sessions
       where coalesce(revoked_at, expires_at) < $1
       order by coalesce(revoked_at, expires_at) limit 50)
     and coalesce(revoked_at, expires_at) < $1`,
    [ended],
  ],
  [
    'pruning: a batch of 50 old sign-in events, first read (the job takes 20 at most)',
    `select old.id from sign_in_events old
     where old.created_at < $1
       and (old.outcome = 'failure' or exists (
         select 1 from sign_in_events newer
         where newer.user_id = old.user_id and newer.outcome = 'success'
           and (newer.created_at, newer.id) > (old.created_at, old.id)))
     order by old.created_at limit 50`,
    [eventsBefore],
  ],
  [
    'pruning: then the DELETE of those events by their ids (write, rolled back)',
    `delete from sign_in_events where id in (
       select old.id from sign_in_events old
       where old.created_at < $1
         and (old.outcome = 'failure' or exists (
           select 1 from sign_in_events newer
           where newer.user_id = old.user_id and newer.outcome = 'success'
             and (newer.created_at, newer.id) > (old.created_at, old.id)))
       order by old.created_at limit 50)`,
    [eventsBefore],
  ],
  [
    'reminders job (a minute after start, then every 15 minutes): the members due',
    `select users.id, users.email, users.locale, users.subscription_end_date as ends_at
     from purchases inner join users on users.id = purchases.user_id
       and users.subscription_end_date = purchases.expires_at
     where purchases.provider in ('Stripe', 'Support') and purchases.revoked_at is null
       and purchases.expires_at > now() and purchases.expires_at <= now() + interval '72 hours'
       and purchases.created_at <= purchases.expires_at - make_interval(secs => 259200)
       and (select true from premium_expiry_reminders
         where premium_expiry_reminders.user_id = purchases.user_id
         and premium_expiry_reminders.ends_at = purchases.expires_at) is null
       and users.expiry_reminders = true
       and not exists (select 1 from app_store_subscriptions
         where app_store_subscriptions.user_id = users.id
           and app_store_subscriptions.auto_renew = true
           and coalesce(app_store_subscriptions.status, 1) not in (2, 5))
     order by users.subscription_end_date`,
  ],
  [
    'reminders job: the reminder mails gone stale',
    `select outbox_emails.id from premium_expiry_reminders
     inner join outbox_emails on outbox_emails.id = premium_expiry_reminders.outbox_email_id
     inner join users on users.id = premium_expiry_reminders.user_id
     where outbox_emails.sent_at is null and outbox_emails.failed_at is null
       and (users.expiry_reminders = false
         or premium_expiry_reminders.ends_at is distinct from users.subscription_end_date)`,
  ],
];

const { rows: sizes } = await client.query(
  `select relname, n_live_tup from pg_stat_user_tables where n_live_tup > 0 order by relname`,
);
const rowsOf = new Map(
  sizes.map((row) => [row.relname, Number(row.n_live_tup).toLocaleString('en-US')]),
);
console.log(
  `EXPLAIN (ANALYZE, BUFFERS) on ${new Date().toISOString()}, PostgreSQL ${
    (await one('show server_version')).server_version
  }`,
);
console.log(`Rows: ${sizes.map((row) => `${row.relname} ${rowsOf.get(row.relname)}`).join(', ')}`);
const summary = [];
for (const [label, text, parameters = []] of queries) {
  await client.query('begin');
  try {
    const { rows } = await client.query(`explain (analyze, buffers) ${text}`, parameters);
    const plan = rows.map((row) => row['QUERY PLAN']).join('\n');
    // A sequential scan named with its table's rows: on a table of a few rows the planner
    // prefers one even where an index would serve.
    const seqScans = [
      ...new Set([...plan.matchAll(/Seq Scan on (\w+)/g)].map((match) => match[1])),
    ];
    const scanned = seqScans.map((table) => `${table} (${rowsOf.get(table) ?? 0} rows)`);
    let verdict = 'index scans only';
    if (scanned.length) {
      // Would an index serve it once the table grows? The same plan with sequential scans
      // priced out shows.
      await client.query('set local enable_seqscan = off');
      const { rows: again } = await client.query(`explain ${text}`, parameters);
      const still = again.some((row) => row['QUERY PLAN'].includes('Seq Scan'));
      verdict = `seq scan of ${scanned.join(', ')}; ${still ? 'NO INDEX serves it' : 'an index serves it when scans are priced out'}`;
    }
    summary.push(`${verdict}: ${label}`);
    console.log(`\n== ${label}\n${text.replace(/\n\s+/g, '\n  ')}\n\n${plan}`);
  } finally {
    await client.query('rollback');
  }
}
console.log(`\n== Summary\n${summary.join('\n')}`);
await client.end();
