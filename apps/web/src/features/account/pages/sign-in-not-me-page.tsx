import { signInNoticeMessages } from '@kegel/contract';
import { useEffect } from 'react';
import { Link, useSearchParams } from 'react-router';

import { paths } from '../../../config/paths';
import { ApiError } from '../../../shared/http/api-client';
import { Button, ButtonLink } from '../../../shared/ui/button';
import { AuthCard } from '../../../shared/ui/card';
import { AlertIcon, LockIcon, ShieldIcon } from '../../../shared/ui/icons/icon-set';
import { toasts } from '../../../shared/ui/toasts';
import { Warning } from '../../../shared/ui/warning';
import { useReportSignIn } from '../sign-ins-api';
import styles from './sign-in-not-me-page.module.css';

/** The server's words for a refused code, also shown for a link that lost its code. */
const INVALID_LINK = signInNoticeMessages.linkInvalid;

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

  useEffect(() => {
    if (!code) toasts.error(INVALID_LINK, { id: INVALID_LINK });
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
        title="Your account is not secured yet"
        icon={<AlertIcon width={28} height={28} />}
        tone="danger"
        subtitle="Nothing has changed yet, and your link still works. Try again in a moment."
      >
        <Button fullWidth onClick={() => report.mutate(code)}>
          Try Again
        </Button>
      </AuthCard>
    );
  }

  return (
    <AuthCard
      title="Was this sign-in not you?"
      icon={<LockIcon width={28} height={28} />}
      subtitle="Your Kegel Coach account was signed in to from a new device or network. If it was not you, secure your account: every device is signed out, this one too, and your password is cleared, since whoever signed in may know it. We then email you a link to choose a new one."
    >
      <Button fullWidth disabled={report.isPending} onClick={() => report.mutate(code)}>
        Secure my account
      </Button>
      <p className={styles.footer}>
        It was you? Then there is nothing to do: <Link to={paths.home.getHref()}>go home</Link>
      </p>
    </AuthCard>
  );
}

function SecuredCard(): React.JSX.Element {
  return (
    <AuthCard
      title="Every device was signed out"
      icon={<ShieldIcon width={28} height={28} />}
      subtitle="Whoever signed in is out of your account, and so is every other device, this one too."
    >
      <Warning icon={LockIcon}>
        <p>
          Your password was cleared. We emailed you a link to choose a new one: open it within an
          hour, or use “Forgot your password?” on the sign-in page later.
        </p>
      </Warning>
      <ButtonLink to={paths.auth.login.getHref()} fullWidth>
        Go to Sign In
      </ButtonLink>
    </AuthCard>
  );
}

function InvalidLinkCard(): React.JSX.Element {
  return (
    <AuthCard
      title="This link does not work"
      icon={<AlertIcon width={28} height={28} />}
      tone="danger"
      subtitle={`${INVALID_LINK} If you used it before, every device was signed out then.`}
    >
      <ButtonLink to={paths.auth.login.getHref()} fullWidth>
        Go to Sign In
      </ButtonLink>
      <p className={styles.footer}>
        Think someone knows your password?{' '}
        <Link to={paths.auth.reset.getHref()}>Choose a new one</Link>
      </p>
    </AuthCard>
  );
}
