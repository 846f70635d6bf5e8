import type { MemberStory } from '@kegel/contract';
import { isLocale, LANGUAGE_NAMES } from '@kegel/contract/i18n';
import { type ReactNode, useState } from 'react';

import { formatLongDate, formatSessionDate, formatShortDate } from '../../../shared/format/dates';
import { providerName, roleName } from '../labels';
import { useDeskText } from '../text';
import styles from './desk.module.css';

/** Who the member is: his account as the product keeps it. */
export function ProfileCard({ profile }: { profile: MemberStory['profile'] }): React.JSX.Element {
  const text = useDeskText();
  const identities = profile.identities.map(
    (identity) => `${identity.provider}${identity.email ? ` (${identity.email})` : ''}`,
  );
  return (
    <section className={styles.panel} aria-labelledby="profile-title">
      <h2 className={styles.sectionTitle} id="profile-title">
        {text('profile')}
      </h2>
      <dl className={styles.facts}>
        <Fact term={text('factEmail')}>{profile.email}</Fact>
        <Fact term={text('factAccountId')}>
          <code>{profile.id}</code>
        </Fact>
        <Fact term={text('factCreated')}>{formatSessionDate(profile.createdAt)}</Fact>
        <Fact term={text('factVerified')}>
          {profile.emailVerifiedAt
            ? formatSessionDate(profile.emailVerifiedAt)
            : text('notVerified')}
        </Fact>
        <Fact term={text('factSignIn')}>
          {[profile.hasPassword ? text('signInPassword') : null, ...identities]
            .filter(Boolean)
            .join(', ') || '—'}
        </Fact>
        <Fact term={text('factTwoStep')}>{text(profile.twoStepEnabled ? 'on' : 'off')}</Fact>
        <Fact term={text('factPasskeys')}>{profile.passkeys}</Fact>
        <Fact term={text('factStripeCustomer')}>
          {profile.stripeCustomerId ? <code>{profile.stripeCustomerId}</code> : '—'}
        </Fact>
        <Fact term={text('factLocale')}>{languageName(profile.locale)}</Fact>
        {profile.operatorRole ? (
          <Fact term={text('factDeskRole')}>{roleName(text, profile.operatorRole)}</Fact>
        ) : null}
      </dl>
    </section>
  );
}

/** His premium end and where it comes from; the subscriptions still running. */
export function PremiumCard({ story }: { story: MemberStory }): React.JSX.Element {
  const text = useDeskText();
  const { premium, activeSubscriptions } = story;
  // Read once per mount: the card does not flip while someone reads it.
  const [now] = useState(() => Date.now());
  const isActive = premium.endsAt !== null && new Date(premium.endsAt).getTime() > now;
  return (
    <section className={styles.panel} aria-labelledby="premium-title">
      <h2 className={styles.sectionTitle} id="premium-title">
        {text('premium')}
      </h2>
      <p className={isActive ? styles.premiumActive : styles.muted}>
        {premium.endsAt
          ? text(isActive ? 'activeUntil' : 'endedOn', { date: formatLongDate(premium.endsAt) })
          : text('noPremium')}
        {premium.source ? text('premiumFrom', { source: providerName(text, premium.source) }) : ''}
      </p>
      <h3 className={styles.subTitle}>{text('activeSubscriptions')}</h3>
      {activeSubscriptions.length === 0 ? (
        <p className={styles.muted}>{text('none')}</p>
      ) : (
        <ul className={styles.plainList}>
          {activeSubscriptions.map((item) => (
            <li key={`${item.provider}|${item.createdAt}|${item.name}`}>
              {text('subscriptionUntil', {
                name: item.name,
                provider: providerName(text, item.provider),
                date: formatShortDate(item.expiresAt),
              })}
            </li>
          ))}
        </ul>
      )}
      {story.appStoreSubscriptions.length > 0 ? (
        <>
          <h3 className={styles.subTitle}>{text('appStoreSubscriptions')}</h3>
          <ul className={styles.plainList}>
            {story.appStoreSubscriptions.map((subscription) => (
              <li key={subscription.originalTransactionId}>
                {subscription.productId} · <code>{subscription.originalTransactionId}</code> ·{' '}
                {subscription.environment}
                {subscription.autoRenew === null
                  ? ''
                  : subscription.autoRenew
                    ? text('renews')
                    : text('doesNotRenew')}
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

/** A member's language by its own name ("Deutsch"); a code this build does not speak, as it is. */
function languageName(locale: string | null): string {
  if (locale === null) return '—';
  return isLocale(locale) ? LANGUAGE_NAMES[locale] : locale;
}
