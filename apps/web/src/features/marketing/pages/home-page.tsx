import type { ComponentType, SVGProps } from 'react';

import { paths } from '../../../config/paths';
import { useHasTokens } from '../../../shared/session/session';
import { ButtonLink } from '../../../shared/ui/button';
import { DownloadAppBanner } from '../../../shared/ui/download-app-banner';
import styles from './home-page.module.css';
import { CrownIcon, ProfileIcon, ShieldIcon } from '../../../shared/ui/icons/icon-set';

interface Benefit {
  title: string;
  text: string;
  Icon: ComponentType<SVGProps<SVGSVGElement>>;
}

const BENEFITS: Benefit[] = [
  {
    title: 'Your progress',
    text: 'See your premium status and how long it lasts, wherever you bought it.',
    Icon: ProfileIcon,
  },
  {
    title: 'Your premium plan',
    text: 'Buy or extend premium in a minute with secure card checkout.',
    Icon: CrownIcon,
  },
  {
    title: 'Your account, safe',
    text: 'Change your email or password and review every purchase you made.',
    Icon: ShieldIcon,
  },
];

/**
 * `/home`: the marketing page. Three cards of one design, each leading to the account: 'Go to
 * Profile' for a member, 'Sign in' for a visitor (README, Product rules). The build draws the
 * visitor's; a member's cards change once the app runs (useHasTokens is false while hydrating).
 */
export function HomePage(): React.JSX.Element {
  const hasTokens = useHasTokens();
  const cardAction = hasTokens
    ? { label: 'Go to Profile', href: paths.dashboard.root.getHref() }
    : { label: 'Sign in', href: paths.auth.login.getHref() };
  return (
    <>
      <section className={styles.hero} aria-labelledby="home-title">
        <span className={styles.eyebrow}>Pelvic-floor training for men</span>
        <h1 className={styles.title} id="home-title">
          Improve your men&apos;s health in a few minutes a day
        </h1>
        <p className={styles.lead}>
          Kegel Coach guides you through short daily exercises that build control, confidence and
          stamina. Manage your membership here; train in the app.
        </p>
      </section>
      <section className={styles.cards} aria-label="What you can do here">
        {BENEFITS.map(({ title, text, Icon }) => (
          <article className={styles.card} key={title}>
            <span className={styles.cardIcon}>
              <Icon />
            </span>
            <h2 className={styles.cardTitle}>{title}</h2>
            <p className={styles.cardText}>{text}</p>
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
