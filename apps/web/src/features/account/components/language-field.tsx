import { isLocale, LANGUAGE_NAMES, type Locale, SUPPORTED_LOCALES } from '@kegel/contract/i18n';
import { useLingui } from '@lingui/react';
import { useQueryClient } from '@tanstack/react-query';

import { useChooseLanguage } from '../../../shared/session/language-choice';
import fieldStyles from '../../../shared/ui/form-field.module.css';
import { preferencesQuery } from '../preferences-api';
import { useAccountText } from '../text';

/**
 * "Language": the member's choice for the site and his mails, each language by its own name.
 * The page switches at once; the choice is kept with his account (and wins on every device over
 * the footer's choice and the browser's).
 */
export function LanguageField({ stored }: { stored: Locale | null }): React.JSX.Element {
  const text = useAccountText();
  const { i18n } = useLingui();
  const chooseLanguage = useChooseLanguage();
  const queryClient = useQueryClient();
  const shown = stored ?? (isLocale(i18n.locale) ? i18n.locale : 'en');

  return (
    <div className={fieldStyles.field}>
      <label className={fieldStyles.label} htmlFor="language">
        {text('language.label')}
      </label>
      <select
        id="language"
        className={fieldStyles.input}
        value={shown}
        aria-describedby="language-hint"
        onChange={async (event) => {
          if (!isLocale(event.target.value)) return;
          await chooseLanguage(event.target.value);
          await queryClient.invalidateQueries(preferencesQuery());
        }}
      >
        {SUPPORTED_LOCALES.map((locale) => (
          <option key={locale} value={locale} lang={locale}>
            {LANGUAGE_NAMES[locale]}
          </option>
        ))}
      </select>
      <p className={fieldStyles.hint} id="language-hint">
        {text('language.hint')}
      </p>
    </div>
  );
}
