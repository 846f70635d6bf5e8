// The mails the support desk's actions send the member (ADR 020): each change an operator makes
// to his premium or his sessions is told to him, with the reason the operator gave.
import { DEFAULT_LOCALE, type PageLocale } from '@kegel/contract/i18n';

import {
  formatUtcMoment,
  type MailText,
  mailTextFor,
  render,
  type RenderedEmail,
} from './templates';

function premiumEndText(text: MailText, endsAt: Date | null, locale: PageLocale): string {
  return endsAt
    ? text('supportDesk.premiumUntil', { moment: formatUtcMoment(endsAt, locale) })
    : text('supportDesk.noPremiumLeft');
}

export function premiumDaysGrantedEmail(input: {
  days: number;
  reason: string;
  endsAt: Date | null;
  dashboardUrl: string;
  supportEmail: string;
  /** The recipient's language (README, Languages); English when unknown. */
  locale?: PageLocale;
}): RenderedEmail {
  const locale = input.locale ?? DEFAULT_LOCALE;
  const text = mailTextFor(locale);
  return render(
    text('premiumDaysGranted.subject', { days: input.days }),
    {
      heading: text('premiumDaysGranted.heading', { days: input.days }),
      paragraphs: [
        text('premiumDaysGranted.added', { days: input.days, reason: input.reason }),
        premiumEndText(text, input.endsAt, locale),
      ],
      action: { label: text('shared.openDashboard'), url: input.dashboardUrl },
      footnote: text('shared.questions', { supportEmail: input.supportEmail }),
    },
    locale,
  );
}

export function premiumGrantRemovedEmail(input: {
  days: number;
  reason: string;
  endsAt: Date | null;
  dashboardUrl: string;
  supportEmail: string;
  /** The recipient's language (README, Languages); English when unknown. */
  locale?: PageLocale;
}): RenderedEmail {
  const locale = input.locale ?? DEFAULT_LOCALE;
  const text = mailTextFor(locale);
  return render(
    text('premiumGrantRemoved.subject'),
    {
      heading: text('premiumGrantRemoved.heading'),
      paragraphs: [
        text('premiumGrantRemoved.removed', { days: input.days, reason: input.reason }),
        premiumEndText(text, input.endsAt, locale),
      ],
      action: { label: text('shared.openDashboard'), url: input.dashboardUrl },
      footnote: text('shared.questions', { supportEmail: input.supportEmail }),
    },
    locale,
  );
}

export function refundIssuedEmail(input: {
  amount: string;
  purchaseName: string;
  reason: string;
  supportEmail: string;
  /** The recipient's language (README, Languages); English when unknown. */
  locale?: PageLocale;
}): RenderedEmail {
  const locale = input.locale ?? DEFAULT_LOCALE;
  const text = mailTextFor(locale);
  return render(
    text('refundIssued.subject', { amount: input.amount }),
    {
      heading: text('refundIssued.heading', { amount: input.amount }),
      paragraphs: [
        text('refundIssued.refunded', {
          amount: input.amount,
          purchaseName: input.purchaseName,
          reason: input.reason,
        }),
        text('refundIssued.toCard'),
      ],
      footnote: text('shared.questions', { supportEmail: input.supportEmail }),
    },
    locale,
  );
}

export function signedOutBySupportEmail(input: {
  reason: string;
  signInUrl: string;
  supportEmail: string;
  /** The recipient's language (README, Languages); English when unknown. */
  locale?: PageLocale;
}): RenderedEmail {
  const locale = input.locale ?? DEFAULT_LOCALE;
  const text = mailTextFor(locale);
  return render(
    text('signedOutBySupport.subject'),
    {
      heading: text('signedOutBySupport.heading'),
      paragraphs: [
        text('signedOutBySupport.ended', { reason: input.reason }),
        text('signedOutBySupport.signInAgain'),
      ],
      action: { label: text('shared.signIn'), url: input.signInUrl },
      footnote: text('shared.questions', { supportEmail: input.supportEmail }),
    },
    locale,
  );
}
