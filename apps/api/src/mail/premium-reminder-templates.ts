// The mail sent before a member's premium ends (modules/premium-reminders): when it ends, the way
// to extend it, and a one-click way out of such mail, in its headers and at its foot.
import { formatUtcMoment, render, type RenderedEmail } from './templates';
import { withOneClickUnsubscribe } from './unsubscribe-headers';

import type { PageLocale } from '@kegel/contract/i18n';
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
  const when = formatUtcMoment(input.endsAt);
  const email = render(`Your Kegel Coach premium ends on ${when}`, {
    heading: 'Your premium ends soon',
    paragraphs: [
      `Your Kegel Coach premium ends on ${when}.`,
      'To keep training without a break, extend it before then: a new pass starts when the current one ends, so no day is lost.',
    ],
    action: { label: 'Extend Premium', url: input.purchaseUrl },
    footnote: `You get this email because reminders before your premium ends are on. Questions? Write to ${input.supportEmail}.`,
    footerLink: { label: 'Stop these reminders', url: input.unsubscribePageUrl },
  });
  return withOneClickUnsubscribe(email, input.oneClickUnsubscribeUrl);
}
