import { LANGUAGE_NAMES, type Locale, SUPPORTED_LOCALES } from '@kegel/contract/i18n';
import { useLingui } from '@lingui/react';
import type { MouseEvent } from 'react';

import { useCommonText } from '../../shared/i18n/common-text';
import { rememberLocaleChoice, switchLocale } from '../../shared/i18n/i18n';
import styles from './site-layout.module.css';

/**
 * The footer's languages, each by its own name. Plain links (`?lang=de`), so one works before the
 * page's code has run: the server keeps the choice in the language cookie and answers the page
 * again in it (plugins/web-app.ts in the API). Once the app runs, a click switches in place. A
 * member's own choice is Account Settings' "Language", which wins over this one on his pages.
 */
export function LanguageSwitcher({
  onChoose,
}: {
  /** What else a choice does: a signed-in member's is also kept with his account. */
  onChoose?: (locale: Locale) => void;
}): React.JSX.Element {
  const text = useCommonText();
  const { i18n } = useLingui();

  function choose(event: MouseEvent<HTMLAnchorElement>, locale: Locale): void {
    event.preventDefault();
    rememberLocaleChoice(locale);
    void switchLocale(locale);
    onChoose?.(locale);
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
