// One-click unsubscribe (RFC 8058) for the mail a member may turn off: the headers that let his
// mail client offer "Unsubscribe" and POST `List-Unsubscribe=One-Click` to the link itself, with
// no page to open and no sign-in. Only mail that is not about security or a payment carries
// them (docs/mail.md lists which): those a member cannot turn off must not look as if he could.
import type { RenderedEmail } from './templates';

/** The mail with the headers of a one-click unsubscribe link (an https URL, signed). */
export function withOneClickUnsubscribe(email: RenderedEmail, oneClickUrl: string): RenderedEmail {
  return {
    ...email,
    headers: {
      ...email.headers,
      'List-Unsubscribe': `<${oneClickUrl}>`,
      'List-Unsubscribe-Post': 'List-Unsubscribe=One-Click',
    },
  };
}
