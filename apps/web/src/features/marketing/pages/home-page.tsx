import type { MessageKey } from '@kegel/contract/i18n/catalogs';
import type { ComponentType, SVGProps } from 'react';

import { paths } from '../../../config/paths';
import { useHasTokens } from '../../../shared/session/session';
import { ButtonLink } from '../../../shared/ui/button';
import { DownloadAppBanner } from '../../../shared/ui/download-app-banner';
import { CrownIcon, ProfileIcon, ShieldIcon } from '../../../shared/ui/icons/icon-set';
import { useMarketingText } from '../text';
import styles from './home-page.module.css';

interface Benefit {
  title: MessageKey<'marketing'>;
  text: MessageKey<'marketing'>;
  Icon: ComponentType<SVGProps<SVGSVGElement>>;
}

const BENEFITS: Benefit[] = [
  { title: 'progressTitle', text: 'progressText', Icon: ProfileIcon },
  { title: 'planTitle', text: 'planText', Icon: CrownIcon },
  { title: 'accountTitle', text: 'accountText', Icon: ShieldIcon },
];

/**
 * `/home`: the marketing page. Three cards of one design, each leading to the account: 'Go to
 * Profile' for a member, 'Sign in' for a visitor (README, Product rules). The build draws the
 * visitor's; a member's cards change once the app runs (useHasTokens is false while hydrating).
 */
export function HomePage(): React.JSX.Element {
  const text = useMarketingText();
  const hasTokens = useHasTokens();
  const cardAction = hasTokens
    ? { label: text('goToProfile'), href: paths.dashboard.root.getHref() }
    : { label: text('signIn'), href: paths.auth.login.getHref() };
  return (
    <>
      <section className={styles.hero} aria-labelledby="home-title">
        <span className={styles.eyebrow}>{text('eyebrow')}</span>
        <h1 className={styles.title} id="home-title">
          {text('title')}
        </h1>
        <p className={styles.lead}>{text('lead')}</p>
      </section>
      <section className={styles.cards} aria-label={text('cardsLabel')}>
        {BENEFITS.map(({ title, text: body, Icon }) => (
          <article className={styles.card} key={title}>
            <span className={styles.cardIcon}>
              <Icon />
            </span>
            <h2 className={styles.cardTitle}>{text(title)}</h2>
            <p className={styles.cardText}>{text(body)}</p>
            <ButtonLink to={cardAction.href} variant="outlined" fullWidth>
              {cardAction.label}
            </ButtonLink>
          </article>
        ))}
      </section>
      <div className={styles.banner}>
        <DownloadAppBanner />
      </div>
    </>
  );
}
