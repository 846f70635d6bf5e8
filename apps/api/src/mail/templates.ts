// The emails the product sends, each as a subject, a plain-text body and a branded HTML body, in
// the recipient's language: every text is in the catalogs' `mail` namespace (English as the spec
// writes it). Every value put into HTML is escaped; links come from PUBLIC_URL, never a request.

import { DEFAULT_LOCALE, type PageLocale } from '@kegel/contract/i18n';
import { type MessageKey, translatorFor } from '@kegel/contract/i18n/catalogs';

export interface RenderedEmail {
  subject: string;
  text: string;
  html: string;
  /** Headers beyond the usual ones: List-Unsubscribe (mail/unsubscribe-headers.ts). */
  headers?: Record<string, string>;
}

/** A text of the catalogs' `mail` namespace. */
export type MailKey = MessageKey<'mail'>;

/** A mail's text in one language: a key of the `mail` namespace, with its values filled in. */
export type MailText = (key: MailKey, values?: Readonly<Record<string, string | number>>) => string;

/**
 * The `mail` texts of `locale`. Values go in verbatim, backslashes included (translatorFor keeps
 * them). Numbers go in as they are (plurals choose by them); the catalogs write counts as
 * `{days}`, which Lingui leaves ungrouped, as the English mails always did ("3650 days").
 */
export function mailTextFor(locale: PageLocale = DEFAULT_LOCALE): MailText {
  const translate = translatorFor(locale);
  return (key, values) => translate('mail', key, values);
}

export function escapeHtml(value: string): string {
  return value
    .replaceAll('&', '&amp;')
    .replaceAll('<', '&lt;')
    .replaceAll('>', '&gt;')
    .replaceAll('"', '&quot;')
    .replaceAll("'", '&#39;');
}

export interface Layout {
  heading: string;
  paragraphs: string[];
  action?: { label: string; url: string };
  footnote: string;
  /** A link under the footnote: how to stop this kind of mail. */
  footerLink?: { label: string; url: string };
}

/** The mail around `layout`, in `locale` (its language also in the HTML's `lang`). */
export function render(subject: string, layout: Layout, locale: PageLocale): RenderedEmail {
  const text = mailTextFor(locale);
  const brand = text('layout.brand');
  const plainText = [
    layout.heading,
    '',
    ...layout.paragraphs.flatMap((paragraph) => [paragraph, '']),
    ...(layout.action ? [`${layout.action.label}: ${layout.action.url}`, ''] : []),
    layout.footnote,
    ...(layout.footerLink ? [`${layout.footerLink.label}: ${layout.footerLink.url}`] : []),
    '',
    `— ${brand}`,
  ].join('\n');

  const button = layout.action
    ? `<p style="margin:28px 0"><a href="${escapeHtml(layout.action.url)}" style="display:inline-block;background:#0e7a61;color:#ffffff;text-decoration:none;font-weight:600;padding:14px 24px;border-radius:10px">${escapeHtml(layout.action.label)}</a></p>
       <p style="font-size:13px;color:#56677a">${escapeHtml(text('layout.buttonFallback'))}<br><span style="word-break:break-all">${escapeHtml(layout.action.url)}</span></p>`
    : '';
  const html = `<!doctype html>
<html lang="${escapeHtml(locale)}"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width"><title>${escapeHtml(subject)}</title></head>
<body style="margin:0;background:#f4f7fa;font-family:-apple-system,'Segoe UI',Roboto,Arial,sans-serif;color:#1b2733">
  <table role="presentation" width="100%" cellpadding="0" cellspacing="0" style="padding:32px 12px"><tr><td align="center">
    <table role="presentation" width="100%" cellpadding="0" cellspacing="0" style="max-width:560px;background:#ffffff;border-radius:16px;border:1px solid #dbe2ea">
      <tr><td style="background:#0f2a43;border-radius:16px 16px 0 0;padding:20px 28px;color:#ffffff;font-size:20px;font-weight:700">${escapeHtml(brand)}</td></tr>
      <tr><td style="padding:28px">
        <h1 style="margin:0 0 16px;font-size:22px;color:#0f2a43">${escapeHtml(layout.heading)}</h1>
        ${layout.paragraphs.map((paragraph) => `<p style="margin:0 0 12px;line-height:1.5">${escapeHtml(paragraph)}</p>`).join('\n        ')}
        ${button}
        <p style="margin:24px 0 0;font-size:13px;color:#56677a">${escapeHtml(layout.footnote)}</p>
        ${layout.footerLink ? `<p style="margin:12px 0 0;font-size:13px;color:#56677a"><a href="${escapeHtml(layout.footerLink.url)}" style="color:#56677a">${escapeHtml(layout.footerLink.label)}</a></p>` : ''}
      </td></tr>
    </table>
  </td></tr></table>
</body></html>`;
  return { subject, text: plainText, html };
}

export function passwordResetEmail(input: {
  link: string;
  validMinutes: number;
  /** The recipient's language (README, Languages); English when unknown. */
  locale?: PageLocale;
}): RenderedEmail {
  const locale = input.locale ?? DEFAULT_LOCALE;
  const text = mailTextFor(locale);
  return render(
    text('passwordReset.subject'),
    {
      heading: text('passwordReset.heading'),
      paragraphs: [
        text('passwordReset.asked'),
        text('passwordReset.validity', { minutes: input.validMinutes }),
      ],
      action: { label: text('shared.chooseNewPassword'), url: input.link },
      footnote: text('passwordReset.footnote'),
    },
    locale,
  );
}

export function emailChangeConfirmationEmail(input: {
  link: string;
  newEmail: string;
  /** The recipient's language (README, Languages); English when unknown. */
  locale?: PageLocale;
}): RenderedEmail {
  const locale = input.locale ?? DEFAULT_LOCALE;
  const text = mailTextFor(locale);
  return render(
    text('emailChangeConfirmation.subject'),
    {
      heading: text('emailChangeConfirmation.heading'),
      paragraphs: [text('emailChangeConfirmation.confirm', { newEmail: input.newEmail })],
      action: { label: text('emailChangeConfirmation.action'), url: input.link },
      footnote: text('emailChangeConfirmation.footnote'),
    },
    locale,
  );
}

/** How Intl writes dates for each language of the mails; the pseudo-locale's is English. */
const DATE_LOCALES: Readonly<Record<PageLocale, string>> = {
  en: 'en-US',
  'en-XA': 'en-US',
  es: 'es',
  de: 'de',
};

/**
 * A moment in UTC, as a notice states it: the reader's time zone is unknown here, and UTC says
 * so rather than guessing ("November 28, 2026 at 4:05 PM (UTC)", "28. November 2026 um 16:05
 * (UTC)").
 */
export function formatUtcMoment(moment: Date, locale: PageLocale = DEFAULT_LOCALE): string {
  const formatted = new Intl.DateTimeFormat(DATE_LOCALES[locale], {
    dateStyle: 'long',
    timeStyle: 'short',
    timeZone: 'UTC',
  }).format(moment);
  return `${formatted} (UTC)`;
}

export function emailChangeNoticeEmail(input: {
  newEmail: string;
  cancelLink: string;
  undoableUntil: Date;
  supportEmail: string;
  /** The recipient's language (README, Languages); English when unknown. */
  locale?: PageLocale;
}): RenderedEmail {
  const locale = input.locale ?? DEFAULT_LOCALE;
  const text = mailTextFor(locale);
  return render(
    text('emailChangeNotice.subject'),
    {
      heading: text('emailChangeNotice.heading'),
      paragraphs: [
        text('emailChangeNotice.asked', { newEmail: input.newEmail }),
        text('emailChangeNotice.onlyWhenConfirmed'),
        text('emailChangeNotice.ifNotYou', {
          until: formatUtcMoment(input.undoableUntil, locale),
        }),
      ],
      action: { label: text('shared.thisWasNotMe'), url: input.cancelLink },
      footnote: text('shared.questions', { supportEmail: input.supportEmail }),
    },
    locale,
  );
}

/**
 * To an address the account moved away from, whose "this wasn't me" link is still open, when a
 * further change is asked for: whoever made the first change may be making another.
 */
export function emailChangeAgainNoticeEmail(input: {
  currentEmail: string;
  newEmail: string;
  cancelLink: string;
  undoableUntil: Date;
  supportEmail: string;
  /** The recipient's language (README, Languages); English when unknown. */
  locale?: PageLocale;
}): RenderedEmail {
  const locale = input.locale ?? DEFAULT_LOCALE;
  const text = mailTextFor(locale);
  return render(
    text('emailChangeAgainNotice.subject'),
    {
      heading: text('emailChangeAgainNotice.heading'),
      paragraphs: [
        text('emailChangeAgainNotice.movedAgain', {
          currentEmail: input.currentEmail,
          newEmail: input.newEmail,
        }),
        text('emailChangeAgainNotice.ifNotYou', {
          until: formatUtcMoment(input.undoableUntil, locale),
        }),
      ],
      action: { label: text('shared.thisWasNotMe'), url: input.cancelLink },
      footnote: text('shared.questions', { supportEmail: input.supportEmail }),
    },
    locale,
  );
}

export function emailChangeUndoneEmail(input: {
  previousEmail: string;
  supportEmail: string;
  /** The recipient's language (README, Languages); English when unknown. */
  locale?: PageLocale;
}): RenderedEmail {
  const locale = input.locale ?? DEFAULT_LOCALE;
  const text = mailTextFor(locale);
  return render(
    text('emailChangeUndone.subject'),
    {
      heading: text('emailChangeUndone.heading'),
      paragraphs: [
        text('emailChangeUndone.wentBack', { previousEmail: input.previousEmail }),
        text('emailChangeUndone.signedOut'),
      ],
      footnote: text('emailChangeUndone.footnote', { supportEmail: input.supportEmail }),
    },
    locale,
  );
}

export function passwordChangedEmail(input: {
  supportEmail: string;
  /** The recipient's language (README, Languages); English when unknown. */
  locale?: PageLocale;
}): RenderedEmail {
  const locale = input.locale ?? DEFAULT_LOCALE;
  const text = mailTextFor(locale);
  return render(
    text('passwordChanged.subject'),
    {
      heading: text('passwordChanged.heading'),
      paragraphs: [text('passwordChanged.changed')],
      footnote: text('passwordChanged.footnote', { supportEmail: input.supportEmail }),
    },
    locale,
  );
}

export function accountCreatedByPurchaseEmail(input: {
  email: string;
  password: string;
  signInUrl: string;
  planName: string;
  /** The recipient's language (README, Languages); English when unknown. */
  locale?: PageLocale;
}): RenderedEmail {
  const locale = input.locale ?? DEFAULT_LOCALE;
  const text = mailTextFor(locale);
  return render(
    text('accountCreatedByPurchase.subject'),
    {
      heading: text('accountCreatedByPurchase.heading'),
      paragraphs: [
        text('accountCreatedByPurchase.thanks', { planName: input.planName }),
        text('accountCreatedByPurchase.created', { email: input.email, password: input.password }),
        text('accountCreatedByPurchase.changeIt'),
      ],
      action: { label: text('shared.signIn'), url: input.signInUrl },
      footnote: text('accountCreatedByPurchase.footnote'),
    },
    locale,
  );
}

export function signInMethodAddedEmail(input: {
  provider: 'Google' | 'Apple';
  passwordRemoved: boolean;
  signInUrl: string;
  supportEmail: string;
  /** The recipient's language (README, Languages); English when unknown. */
  locale?: PageLocale;
}): RenderedEmail {
  const locale = input.locale ?? DEFAULT_LOCALE;
  const text = mailTextFor(locale);
  const { provider } = input;
  return render(
    text('signInMethodAdded.subject', { provider }),
    {
      heading: text('signInMethodAdded.heading', { provider }),
      paragraphs: [
        text('signInMethodAdded.confirmed', { provider }),
        ...(input.passwordRemoved ? [text('signInMethodAdded.passwordRemoved')] : []),
      ],
      action: { label: text('shared.signIn'), url: input.signInUrl },
      footnote: text('shared.notYouWriteNow', { supportEmail: input.supportEmail }),
    },
    locale,
  );
}

export function passkeyAddedEmail(input: {
  passkeyName: string;
  settingsUrl: string;
  supportEmail: string;
  /** The recipient's language (README, Languages); English when unknown. */
  locale?: PageLocale;
}): RenderedEmail {
  const locale = input.locale ?? DEFAULT_LOCALE;
  const text = mailTextFor(locale);
  return render(
    text('passkeyAdded.subject'),
    {
      heading: text('passkeyAdded.heading'),
      paragraphs: [
        text('passkeyAdded.added', { passkeyName: input.passkeyName }),
        text('passkeyAdded.ifNotYou'),
      ],
      action: { label: text('shared.openAccountSettings'), url: input.settingsUrl },
      footnote: text('shared.notYouWriteNow', { supportEmail: input.supportEmail }),
    },
    locale,
  );
}

export function accountDeletedEmail(input: {
  hadAppStoreSubscription: boolean;
  supportEmail: string;
  /** The recipient's language (README, Languages); English when unknown. */
  locale?: PageLocale;
}): RenderedEmail {
  const locale = input.locale ?? DEFAULT_LOCALE;
  const text = mailTextFor(locale);
  return render(
    text('accountDeleted.subject'),
    {
      heading: text('accountDeleted.heading'),
      paragraphs: [
        text('accountDeleted.deleted'),
        text('accountDeleted.records'),
        ...(input.hadAppStoreSubscription ? [text('accountDeleted.appStore')] : []),
        text('accountDeleted.welcomeBack'),
      ],
      footnote: text('accountDeleted.footnote', { supportEmail: input.supportEmail }),
    },
    locale,
  );
}
