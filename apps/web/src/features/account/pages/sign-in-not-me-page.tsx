import { signInNoticeMessages } from '@kegel/contract';
import { useEffect } from 'react';
import { Link, useSearchParams } from 'react-router';

import { paths } from '../../../config/paths';
import { ApiError } from '../../../shared/http/api-client';
import '../../../shared/i18n/contract-messages';
import { localizeMessage } from '../../../shared/i18n/i18n';
import { RichText } from '../../../shared/i18n/rich-text';
import { Button, ButtonLink } from '../../../shared/ui/button';
import { AuthCard } from '../../../shared/ui/card';
import { AlertIcon, LockIcon, ShieldIcon } from '../../../shared/ui/icons/icon-set';
import { toasts } from '../../../shared/ui/toasts';
import { Warning } from '../../../shared/ui/warning';
import { useReportSignIn } from '../email-links-api';
import { useEmailLinksText } from '../email-links-text';
import styles from './sign-in-not-me-page.module.css';

/** The server's words for a refused code, also shown for a link that lost its code. */
const invalidLinkMessage = () => localizeMessage(signInNoticeMessages.linkInvalid);

/**
 * `/account/sign-in-not-me?code=…`, the "This wasn't me" button of the notice mailed when the
 * account signs in from a new device or network (ADR 019). The owner confirms with a click (mail
 * scanners open links, and must not sign anyone out); then every device is signed out, the
 * password is cleared and a link to choose a new one is on its way to his inbox.
 */
export function SignInNotMePage(): React.JSX.Element {
  const [searchParams] = useSearchParams();
  const code = searchParams.get('code');
  const report = useReportSignIn();
  const text = useEmailLinksText();

  useEffect(() => {
    if (!code) toasts.error(invalidLinkMessage(), { id: signInNoticeMessages.linkInvalid });
  }, [code]);

  if (!code) return <InvalidLinkCard />;
  if (report.isSuccess) return <SecuredCard />;
  if (report.isError) {
    const status = report.error instanceof ApiError ? report.error.statusCode : undefined;
    // A 400 means the code was refused.
    if (status === 400) return <InvalidLinkCard />;
    // A lost connection, a 429 or a server error left the code unused: try again.
    return (
      <AuthCard
        title={text('signInNotMe.notYetTitle')}
        icon={<AlertIcon width={28} height={28} />}
        tone="danger"
        subtitle={text('links.nothingChangedYet')}
      >
        <Button fullWidth onClick={() => report.mutate(code)}>
          {text('links.tryAgain')}
        </Button>
      </AuthCard>
    );
  }

  return (
    <AuthCard
      title={text('signInNotMe.askTitle')}
      icon={<LockIcon width={28} height={28} />}
      subtitle={text('signInNotMe.askSubtitle')}
    >
      <Button fullWidth disabled={report.isPending} onClick={() => report.mutate(code)}>
        {text('signInNotMe.secure')}
      </Button>
      <p className={styles.footer}>
        <RichText
          texts={text}
          name="links.itWasYou"
          components={{ link: <Link to={paths.home.getHref()} /> }}
        />
      </p>
    </AuthCard>
  );
}

function SecuredCard(): React.JSX.Element {
  const text = useEmailLinksText();
  return (
    <AuthCard
      title={text('signInNotMe.securedTitle')}
      icon={<ShieldIcon width={28} height={28} />}
      subtitle={text('signInNotMe.securedSubtitle')}
    >
      <Warning icon={LockIcon}>
        <p>{text('signInNotMe.passwordCleared')}</p>
      </Warning>
      <ButtonLink to={paths.auth.login.getHref()} fullWidth>
        {text('links.goToSignIn')}
      </ButtonLink>
    </AuthCard>
  );
}

function InvalidLinkCard(): React.JSX.Element {
  const text = useEmailLinksText();
  return (
    <AuthCard
      title={text('links.doesNotWork')}
      icon={<AlertIcon width={28} height={28} />}
      tone="danger"
      subtitle={text('signInNotMe.invalidLink', { reason: invalidLinkMessage() })}
    >
      <ButtonLink to={paths.auth.login.getHref()} fullWidth>
        {text('links.goToSignIn')}
      </ButtonLink>
      <p className={styles.footer}>
        <RichText
          texts={text}
          name="links.someoneKnowsPassword"
          components={{ link: <Link to={paths.auth.reset.getHref()} /> }}
        />
      </p>
    </AuthCard>
  );
}
