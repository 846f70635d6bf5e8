import { Link, NavLink, Outlet } from 'react-router';

import { externalLinks, paths } from '../../config/paths';
import { useCommonText } from '../../shared/i18n/common-text';
import { useHasTokens, useProfile } from '../../shared/session/session';
import buttonStyles from '../../shared/ui/button.module.css';
import { LogoIcon } from '../../shared/ui/icons/logo-icon';
import { SpinnerOverlay } from '../../shared/ui/spinner-overlay';
import styles from './site-layout.module.css';
import { DownloadIcon, ProfileIcon } from '../../shared/ui/icons/icon-set';
import { LanguageSwitcher } from './language-switcher';

/** Header, page, footer: the frame of every page. */
export function SiteLayout(): React.JSX.Element {
  const text = useCommonText();
  const hasTokens = useHasTokens();
  const profile = useProfile();
  return (
    <div className={styles.page}>
      <a className={styles.skipLink} href="#main">
        {text('skipToContent')}
      </a>
      {hasTokens && profile.isPending ? <SpinnerOverlay label={text('loadingProfile')} /> : null}
      <SiteHeader
        email={profile.data?.email}
        // A member whose profile is still loading gets no 'Sign In' for a moment: the email follows.
        offersSignIn={!hasTokens || profile.isError}
      />
      <main className={styles.main} id="main">
        <Outlet />
      </main>
      <SiteFooter />
    </div>
  );
}

/**
 * What a member's page shows while his profile loads, as SiteLayout draws it then. The build also
 * draws it into the member area's HTML (scripts/prerender.mjs), so a member opening his dashboard
 * on a slow network sees the site's frame at once rather than a blank page; the app replaces it
 * with the same frame when it starts.
 */
export function MemberLoadingFrame(): React.JSX.Element {
  const text = useCommonText();
  return (
    <div className={styles.page}>
      <a className={styles.skipLink} href="#main">
        {text('skipToContent')}
      </a>
      <SpinnerOverlay label={text('loadingProfile')} />
      <SiteHeader email={undefined} offersSignIn={false} />
      <main className={styles.main} id="main" />
      <SiteFooter />
    </div>
  );
}

/**
 * A header navigation button: lit while the location starts with its target path.
 * NavLink's own matching is exactly that: the path itself and anything below it.
 */
function navButtonClass({ isActive }: { isActive: boolean }): string {
  return [
    buttonStyles.button,
    buttonStyles.size44,
    isActive ? buttonStyles.secondary : buttonStyles.primary,
  ].join(' ');
}

function SiteHeader({
  email,
  offersSignIn,
}: {
  email: string | undefined;
  offersSignIn: boolean;
}): React.JSX.Element {
  const text = useCommonText();
  return (
    <header className={styles.header}>
      <div className={styles.headerInner}>
        <Link to={paths.root.getHref()} className={styles.brand}>
          <LogoIcon />
          <span>{text('appName')}</span>
        </Link>
        <nav className={styles.nav} aria-label={text('accountNavigation')}>
          <ul>
            {/* Keyed apart, so one button replaces the other rather than being moved. */}
            {email ? (
              <li key="member">
                <NavLink to={paths.dashboard.root.getHref()} className={navButtonClass}>
                  <ProfileIcon width={18} height={18} />
                  <span className={styles.email}>{email}</span>
                </NavLink>
              </li>
            ) : offersSignIn ? (
              <li key="visitor">
                <NavLink to={paths.auth.login.getHref()} className={navButtonClass}>
                  {text('signIn')}
                </NavLink>
              </li>
            ) : null}
          </ul>
        </nav>
      </div>
    </header>
  );
}

function SiteFooter(): React.JSX.Element {
  const text = useCommonText();
  return (
    <footer className={styles.footer}>
      <div className={styles.footerInner}>
        <nav aria-label={text('footerNavigation')}>
          <ul className={styles.footerLinks}>
            <li>
              <a href={externalLinks.features}>{text('features')}</a>
            </li>
            <li>
              <a href={externalLinks.support}>{text('support')}</a>
            </li>
            <li>
              <a href={externalLinks.privacyPolicy}>{text('privacyPolicy')}</a>
            </li>
            <li>
              <a href={externalLinks.termsOfUse}>{text('termsOfUse')}</a>
            </li>
            <li>
              <a href={externalLinks.appStore} className={styles.withIcon}>
                <DownloadIcon width={16} height={16} />
                {text('downloadApp')}
              </a>
            </li>
          </ul>
        </nav>
        <LanguageSwitcher />
        <p className={styles.copyright}>{text('copyright')}</p>
      </div>
    </footer>
  );
}
