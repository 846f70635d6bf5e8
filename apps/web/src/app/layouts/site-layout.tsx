import { Link, Outlet } from 'react-router';

import { externalLinks, paths } from '../../config/paths';
import { ButtonLink } from '../../shared/ui/button';
import { LogoIcon } from '../../shared/ui/icons/logo-icon';
import styles from './site-layout.module.css';

export const APP_NAME = 'Kegel Coach';

/** Header, page, footer: the frame of every page (spec §1). */
export function SiteLayout(): React.JSX.Element {
  return (
    <div className={styles.page}>
      <SiteHeader />
      <main className={styles.main} id="main">
        <Outlet />
      </main>
      <SiteFooter />
    </div>
  );
}

function SiteHeader(): React.JSX.Element {
  return (
    <header className={styles.header}>
      <div className={styles.headerInner}>
        <Link to={paths.root.getHref()} className={styles.brand}>
          <LogoIcon />
          <span>{APP_NAME}</span>
        </Link>
        <nav className={styles.nav} aria-label="Account">
          <ul>
            <li>
              <ButtonLink to={paths.auth.login.getHref()} size={44}>
                Sign In
              </ButtonLink>
            </li>
          </ul>
        </nav>
      </div>
    </header>
  );
}

function SiteFooter(): React.JSX.Element {
  return (
    <footer className={styles.footer}>
      <div className={styles.footerInner}>
        <nav aria-label="Footer">
          <ul className={styles.footerLinks}>
            <li>
              <a href={externalLinks.features}>Features</a>
            </li>
            <li>
              <a href={externalLinks.support}>Support</a>
            </li>
            <li>
              <a href={externalLinks.privacyPolicy}>Privacy Policy</a>
            </li>
            <li>
              <a href={externalLinks.termsOfUse}>Terms of Use</a>
            </li>
            <li>
              <a href={externalLinks.appStore}>Download App</a>
            </li>
          </ul>
        </nav>
        <p className={styles.copyright}>2024, all rights reserved</p>
      </div>
    </footer>
  );
}
