// The mail sent before a member's premium ends (modules/premium-reminders): when it ends, the way
// to extend it, and a one-click way out of such mail, in its headers and at its foot.
import { DEFAULT_LOCALE, type PageLocale } from '@kegel/contract/i18n';

import { formatUtcMoment, mailTextFor, render, type RenderedEmail } from './templates';
import { withOneClickUnsubscribe } from './unsubscribe-headers';

export function premiumEndingEmail(input: {
  endsAt: Date;
  purchaseUrl: string;
  /** What mail clients POST to (List-Unsubscribe). */
  oneClickUnsubscribeUrl: string;
  /** What a person opens from the mail's foot: a page that asks before turning anything off. */
  unsubscribePageUrl: string;
  supportEmail: string;
  /** The recipient's language (README, Languages); English when unknown. */
  locale?: PageLocale;
}): RenderedEmail {
  const locale = input.locale ?? DEFAULT_LOCALE;
  const text = mailTextFor(locale);
  const when = formatUtcMoment(input.endsAt, locale);
  const email = render(
    text('premiumEnding.subject', { when }),
    {
      heading: text('premiumEnding.heading'),
      paragraphs: [text('premiumEnding.endsOn', { when }), text('premiumEnding.extendBefore')],
      action: { label: text('premiumEnding.action'), url: input.purchaseUrl },
      footnote: text('premiumEnding.footnote', { supportEmail: input.supportEmail }),
      footerLink: { label: text('premiumEnding.stopReminders'), url: input.unsubscribePageUrl },
    },
    locale,
  );
  return withOneClickUnsubscribe(email, input.oneClickUnsubscribeUrl);
}
