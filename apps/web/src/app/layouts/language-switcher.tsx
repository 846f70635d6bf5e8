import { LANGUAGE_NAMES, type Locale, SUPPORTED_LOCALES } from '@kegel/contract/i18n';
import { useLingui } from '@lingui/react';
import type { MouseEvent } from 'react';

import { useCommonText } from '../../shared/i18n/common-text';
import { useChooseLanguage } from '../../shared/session/language-choice';
import styles from './site-layout.module.css';

/**
 * The footer's languages, each by its own name. Plain links (`?lang=de`), so one works before the
 * page's code has run: the server keeps the choice in the language cookie and answers the page
 * again in it (plugins/web-app.ts in the API). Once the app runs, a click switches in place, and
 * a signed-in member's choice is kept with his account (shared/session/language-choice.ts).
 */
export function LanguageSwitcher(): React.JSX.Element {
  const text = useCommonText();
  const { i18n } = useLingui();
  const chooseLanguage = useChooseLanguage();

  function choose(event: MouseEvent<HTMLAnchorElement>, locale: Locale): void {
    event.preventDefault();
    void chooseLanguage(locale);
  }

  return (
    <nav aria-label={text('language')}>
      <ul className={styles.languages}>
        {SUPPORTED_LOCALES.map((locale) => (
          <li key={locale}>
            <a
              href={`?lang=${locale}`}
              hrefLang={locale}
              lang={locale}
              aria-current={i18n.locale === locale ? 'true' : undefined}
              onClick={(event) => choose(event, locale)}
            >
              {LANGUAGE_NAMES[locale]}
            </a>
          </li>
        ))}
      </ul>
    </nav>
  );
}
