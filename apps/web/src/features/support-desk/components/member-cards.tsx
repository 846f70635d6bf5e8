import type { MemberStory } from '@kegel/contract';
import { type ReactNode, useState } from 'react';

import { formatLongDate, formatSessionDate, formatShortDate } from '../../../shared/format/dates';
import styles from './desk.module.css';

/** Who the member is: his account as the product keeps it. */
export function ProfileCard({ profile }: { profile: MemberStory['profile'] }): React.JSX.Element {
  const identities = profile.identities.map(
    (identity) => `${identity.provider}${identity.email ? ` (${identity.email})` : ''}`,
  );
  return (
    <section className={styles.panel} aria-labelledby="profile-title">
      <h2 className={styles.sectionTitle} id="profile-title">
        Profile
      </h2>
      <dl className={styles.facts}>
        <Fact term="Email">{profile.email}</Fact>
        <Fact term="Account id">
          <code>{profile.id}</code>
        </Fact>
        <Fact term="Created">{formatSessionDate(profile.createdAt)}</Fact>
        <Fact term="Verified">
          {profile.emailVerifiedAt ? formatSessionDate(profile.emailVerifiedAt) : 'Not verified'}
        </Fact>
        <Fact term="Sign-in">
          {[profile.hasPassword ? 'password' : null, ...identities].filter(Boolean).join(', ') ||
            '—'}
        </Fact>
        <Fact term="Two-step">{profile.twoStepEnabled ? 'On' : 'Off'}</Fact>
        <Fact term="Passkeys">{profile.passkeys}</Fact>
        <Fact term="Stripe customer">
          {profile.stripeCustomerId ? <code>{profile.stripeCustomerId}</code> : '—'}
        </Fact>
        <Fact term="Locale">{profile.locale ?? '—'}</Fact>
        {profile.operatorRole ? <Fact term="Desk role">{profile.operatorRole}</Fact> : null}
      </dl>
    </section>
  );
}

/** His premium end and where it comes from; the subscriptions still running. */
export function PremiumCard({ story }: { story: MemberStory }): React.JSX.Element {
  const { premium, activeSubscriptions } = story;
  // Read once per mount: the card does not flip while someone reads it.
  const [now] = useState(() => Date.now());
  const isActive = premium.endsAt !== null && new Date(premium.endsAt).getTime() > now;
  return (
    <section className={styles.panel} aria-labelledby="premium-title">
      <h2 className={styles.sectionTitle} id="premium-title">
        Premium
      </h2>
      <p className={isActive ? styles.premiumActive : styles.muted}>
        {premium.endsAt
          ? `${isActive ? 'Active until' : 'Ended on'} ${formatLongDate(premium.endsAt)}`
          : 'No premium'}
        {premium.source ? ` · from ${premium.source}` : ''}
      </p>
      <h3 className={styles.subTitle}>Active subscriptions</h3>
      {activeSubscriptions.length === 0 ? (
        <p className={styles.muted}>None</p>
      ) : (
        <ul className={styles.plainList}>
          {activeSubscriptions.map((item) => (
            <li key={`${item.provider}|${item.createdAt}|${item.name}`}>
              {item.name} · {item.provider} · until {formatShortDate(item.expiresAt)}
            </li>
          ))}
        </ul>
      )}
      {story.appStoreSubscriptions.length > 0 ? (
        <>
          <h3 className={styles.subTitle}>App Store subscriptions</h3>
          <ul className={styles.plainList}>
            {story.appStoreSubscriptions.map((subscription) => (
              <li key={subscription.originalTransactionId}>
                {subscription.productId} · <code>{subscription.originalTransactionId}</code> ·{' '}
                {subscription.environment}
                {subscription.autoRenew === null
                  ? ''
                  : subscription.autoRenew
                    ? ' · renews'
                    : ' · does not renew'}
              </li>
            ))}
          </ul>
        </>
      ) : null}
    </section>
  );
}

function Fact({ term, children }: { term: string; children: ReactNode }): React.JSX.Element {
  return (
    <div className={styles.fact}>
      <dt>{term}</dt>
      <dd>{children}</dd>
    </div>
  );
}
