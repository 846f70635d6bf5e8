// The mails about two-step sign-in (ADR 018): each change of it is told to the owner, as whoever
// holds a session (no password asked) could otherwise bind the account to his own phone, or
// take its recovery codes, unseen.
import { DEFAULT_LOCALE, type PageLocale } from '@kegel/contract/i18n';

import { type MailKey, mailTextFor, render, type RenderedEmail } from './templates';

export type TwoStepChange = 'turned-on' | 'turned-off' | 'recovery-codes-renewed';

const CHANGES: Readonly<
  Record<TwoStepChange, { subject: MailKey; heading: MailKey; what: MailKey }>
> = {
  'turned-on': {
    subject: 'twoStep.turnedOn.subject',
    heading: 'twoStep.turnedOn.heading',
    what: 'twoStep.turnedOn.what',
  },
  'turned-off': {
    subject: 'twoStep.turnedOff.subject',
    heading: 'twoStep.turnedOff.heading',
    what: 'twoStep.turnedOff.what',
  },
  'recovery-codes-renewed': {
    subject: 'twoStep.recoveryCodesRenewed.subject',
    heading: 'twoStep.recoveryCodesRenewed.heading',
    what: 'twoStep.recoveryCodesRenewed.what',
  },
};

export function twoStepChangedEmail(input: {
  change: TwoStepChange;
  settingsUrl: string;
  supportEmail: string;
  /** The recipient's language (README, Languages); English when unknown. */
  locale?: PageLocale;
}): RenderedEmail {
  const locale = input.locale ?? DEFAULT_LOCALE;
  const text = mailTextFor(locale);
  const change = CHANGES[input.change];
  return render(
    text(change.subject),
    {
      heading: text(change.heading),
      paragraphs: [text(change.what), text('twoStep.ifNotYou')],
      action: { label: text('shared.openAccountSettings'), url: input.settingsUrl },
      footnote: text('shared.notYouWriteNow', { supportEmail: input.supportEmail }),
    },
    locale,
  );
}
