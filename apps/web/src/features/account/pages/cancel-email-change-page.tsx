import { authMessages } from '@kegel/contract';
import { useEffect } from 'react';
import { Link, useSearchParams } from 'react-router';

import { paths } from '../../../config/paths';
import { ApiError } from '../../../shared/http/api-client';
import { Button, ButtonLink } from '../../../shared/ui/button';
import { AuthCard } from '../../../shared/ui/card';
import { AlertIcon, LockIcon, ShieldIcon } from '../../../shared/ui/icons/icon-set';
import { toasts } from '../../../shared/ui/toasts';
import { Warning } from '../../../shared/ui/warning';
import { useCancelEmailChange } from '../api';
import styles from './cancel-email-change-page.module.css';

/** The server's words for a refused code, also shown for a link that lost its code. */
const INVALID_LINK = authMessages.undoLinkInvalid;

/**
 * `/account/cancel-email-change?code=…`, the "This was not me" button of the notice mailed to
 * the old address when someone asks to change it. The owner confirms with a click (mail
 * scanners open links, and must not cancel anything); then the change is cancelled or undone and
 * the page tells him that every device was signed out and to choose a new password.
 */
export function CancelEmailChangePage(): React.JSX.Element {
  const [searchParams] = useSearchParams();
  const code = searchParams.get('code');
  const cancel = useCancelEmailChange();

  useEffect(() => {
    if (!code) toasts.error(INVALID_LINK, { id: INVALID_LINK });
  }, [code]);

  if (!code) return <InvalidLinkCard />;
  if (cancel.isSuccess) return <CancelledCard />;
  if (cancel.isError) {
    const status = cancel.error instanceof ApiError ? cancel.error.statusCode : undefined;
    // A 400 means the code was refused.
    if (status === 400) return <InvalidLinkCard />;
    // A 409: everyone was signed out, but the old address belongs to another account now.
    if (status === 409) return <AddressTakenCard message={cancel.error.message} />;
    // A lost connection, a 429 or a server error left the code unused: try again.
    return (
      <AuthCard
        title="The change is not cancelled yet"
        icon={<AlertIcon width={28} height={28} />}
        tone="danger"
        subtitle="Nothing has changed yet, and your link still works. Try again in a moment."
      >
        <Button fullWidth onClick={() => cancel.mutate(code)}>
          Try Again
        </Button>
      </AuthCard>
    );
  }

  return (
    <AuthCard
      title="Was this change not yours?"
      icon={<LockIcon width={28} height={28} />}
      subtitle="Someone asked to change the email address of your Kegel Coach account. If it was not you, cancel it: your account keeps its address (or gets it back), every device is signed out and your password is cleared, since whoever asked knows it."
    >
      <Button fullWidth disabled={cancel.isPending} onClick={() => cancel.mutate(code)}>
        Cancel the change
      </Button>
      <p className={styles.footer}>
        It was you? Then there is nothing to do: <Link to={paths.home.getHref()}>go home</Link>
      </p>
    </AuthCard>
  );
}

function AddressTakenCard({ message }: { message: string }): React.JSX.Element {
  return (
    <AuthCard
      title="Your address could not be given back"
      icon={<AlertIcon width={28} height={28} />}
      tone="danger"
      subtitle={message}
    >
      <ButtonLink to={paths.auth.login.getHref()} fullWidth>
        Go to Sign In
      </ButtonLink>
    </AuthCard>
  );
}

function CancelledCard(): React.JSX.Element {
  return (
    <AuthCard
      title="Email change cancelled"
      icon={<ShieldIcon width={28} height={28} />}
      subtitle="Your account keeps its email address, or has it back if the change had gone through already. Every device was signed out, this one too."
    >
      <Warning icon={LockIcon}>
        <p>
          Whoever asked for the change knows your password, so it was cleared. Choose a new one to
          sign in again with your email.
        </p>
      </Warning>
      <ButtonLink to={paths.auth.reset.getHref()} fullWidth>
        Choose a new password
      </ButtonLink>
      <ButtonLink to={paths.auth.login.getHref()} variant="outlined" fullWidth>
        Sign In
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
      subtitle={`${INVALID_LINK} If you used it before, the change was cancelled then.`}
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
