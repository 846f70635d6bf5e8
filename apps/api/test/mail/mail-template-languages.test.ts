// Every mail in Spanish and German: no English sentence left in it, every placeholder filled,
// dates written as the language writes them, and what a member typed shown as typed. A mail
// that a catalog misses, or a template that forgets the locale, fails here.
import { pseudoLocalize } from '@kegel/contract/i18n';
import { describe, expect, it } from 'vitest';

import { premiumEndingEmail } from '../../src/mail/premium-reminder-templates';
import { newSignInEmail } from '../../src/mail/sign-in-templates';
import { premiumDaysGrantedEmail } from '../../src/mail/support-desk-templates';
import { passkeyAddedEmail, passwordResetEmail } from '../../src/mail/templates';
import { TEMPLATE_CASES } from './template-cases';

/** The plain text's lines, but the brand's signature (the same in every language). */
function sentencesOf(text: string): string[] {
  return text.split('\n').filter((line) => line !== '' && line !== '— Kegel Coach');
}

/** An ICU placeholder or plural left in the output, once the typed `{curly}` value is set aside. */
const UNFILLED = /\{\s*[A-Za-z]+\s*[,}]|#/;
function withoutTypedBraces(text: string): string {
  return text.replaceAll('{curly}', '');
}

describe.each(['es', 'de'] as const)('mail templates in %s', (locale) => {
  it.each(TEMPLATE_CASES)('%s has no English sentence left', (_name, render) => {
    const english = render('en');
    const translated = render(locale);

    expect(translated.subject).not.toBe(english.subject);
    expect(translated.subject).not.toMatch(UNFILLED);
    const [heading = ''] = sentencesOf(translated.text);
    expect(heading).not.toBe(sentencesOf(english.text)[0]);
    expect(withoutTypedBraces(translated.text)).not.toMatch(UNFILLED);
    for (const sentence of sentencesOf(english.text)) {
      expect(sentencesOf(translated.text), sentence).not.toContain(sentence);
    }

    expect(translated.html).toContain(`<html lang="${locale}">`);
    expect(translated.html).toContain(`<title>${translated.subject.replaceAll('&', '&amp;')}`);
    expect(translated.html).not.toContain('If the button does not work');
    expect(translated.headers).toEqual(english.headers);
  });
});

describe('a German mail', () => {
  it('resets a password in German, subject and body', () => {
    const email = passwordResetEmail({
      link: 'https://kegel.example/auth/reset?code=abc',
      validMinutes: 60,
      locale: 'de',
    });
    expect(email.subject).toBe('Setzen Sie Ihr Kegel Coach-Passwort zurück');
    expect(email.text).toContain('Passwort zurücksetzen\n');
    expect(email.text).toContain('Der Link unten funktioniert einmal und 60 Minuten lang.');
    expect(email.text).toContain(
      'Neues Passwort festlegen: https://kegel.example/auth/reset?code=abc',
    );
    expect(email.html).toContain('<html lang="de">');
    expect(email.html).toContain(
      'Falls die Schaltfläche nicht funktioniert, fügen Sie diese Adresse in Ihren Browser ein:',
    );
    expect(email.html).toContain('>Neues Passwort festlegen</a>');
  });

  it('writes dates as German does, still in UTC', () => {
    const email = premiumEndingEmail({
      endsAt: new Date('2026-11-28T16:05:00Z'),
      purchaseUrl: 'https://kegel.example/purchase',
      oneClickUnsubscribeUrl: 'https://kegel.example/api/unsubscribe?token=t',
      unsubscribePageUrl: 'https://kegel.example/unsubscribe?token=t',
      supportEmail: 'support@kegel.example',
      locale: 'de',
    });
    expect(email.subject).toBe('Ihr Kegel Coach Premium endet am 28. November 2026 um 16:05 (UTC)');
  });

  it('counts days in German, one and many', () => {
    const granted = (days: number) =>
      premiumDaysGrantedEmail({
        days,
        reason: 'Ausfall',
        endsAt: null,
        dashboardUrl: 'https://kegel.example/dashboard',
        supportEmail: 'support@kegel.example',
        locale: 'de',
      });
    expect(granted(1).subject).toBe('Sie haben 1 weiteren Tag Premium');
    expect(granted(3650).subject).toBe('Sie haben 3650 weitere Tage Premium');
    expect(granted(7).text).toContain('Sie haben keine Premium-Tage mehr.');
  });

  it('names the sign-in method in German, and an unknown one as recorded', () => {
    const notice = (method: string) =>
      newSignInEmail({
        signedInAt: new Date('2026-11-28T16:05:00Z'),
        method,
        device: 'Firefox',
        clientAddress: '203.0.113.7',
        notMeLink: 'https://kegel.example/not-me',
        linkValidUntil: new Date('2026-12-05T09:30:00Z'),
        supportEmail: 'support@kegel.example',
        locale: 'de',
      }).text;
    expect(notice('passkey')).toContain('Wie: mit einem Passkey');
    expect(notice('carrier-pigeon')).toContain('Wie: mit carrier-pigeon');
    expect(notice('passkey')).toContain('Wann: 28. November 2026 um 16:05 (UTC)');
  });
});

describe('values in a translated mail', () => {
  const typed = `Mein <b>"Schlüssel"</b> C:\\x41 \\u0042 {name} #1`;

  it.each(['de', 'es', 'en-XA'] as const)('stay as typed in %s, escaped in HTML', (locale) => {
    const email = passkeyAddedEmail({
      passkeyName: typed,
      settingsUrl: 'https://kegel.example/account',
      supportEmail: 'support@kegel.example',
      locale,
    });
    expect(email.text).toContain(typed);
    expect(email.html).toContain(
      'Mein &lt;b&gt;&quot;Schlüssel&quot;&lt;/b&gt; C:\\x41 \\u0042 {name} #1',
    );
  });

  it('come through the pseudo-locale unbracketed, its texts bracketed', () => {
    const email = passwordResetEmail({
      link: 'https://x.example',
      validMinutes: 60,
      locale: 'en-XA',
    });
    expect(email.subject).toBe(pseudoLocalize('Reset your Kegel Coach password'));
    expect(email.html).toContain('<html lang="en-XA">');
    expect(email.text).toContain(': https://x.example');
  });
});
