import { useEffect, useRef } from 'react';
import { Link, useSearchParams } from 'react-router';
import { toast } from 'react-toastify';

import { paths } from '../../../config/paths';
import { ApiError } from '../../../shared/http/api-client';
import { Button, ButtonLink } from '../../../shared/ui/button';
import { AuthCard } from '../../../shared/ui/card';
import { AlertIcon, LockIcon, ShieldIcon } from '../../../shared/ui/icons/icon-set';
import { useCancelEmailChange } from '../api';
import styles from './cancel-email-change-page.module.css';

/** The server's words for a refused code, also shown for a link that lost its code. */
const INVALID_LINK = 'This link is invalid, was used already or has expired.';

/**
 * `/account/cancel-email-change?code=…`, the "This was not me" button of the notice mailed to
 * the old address when someone asks to change it: cancels the change (or undoes it) at once,
 * then tells the owner that every device was signed out and to choose a new password.
 */
export function CancelEmailChangePage(): React.JSX.Element {
  const [searchParams] = useSearchParams();
  const code = searchParams.get('code');
  const cancel = useCancelEmailChange();
  const hasStarted = useRef(false);
  const { mutate } = cancel;

  useEffect(() => {
    if (!code) {
      toast.error(INVALID_LINK, { toastId: INVALID_LINK });
      return;
    }
    // Once per visit, even when React runs effects twice in development: the code works once.
    if (hasStarted.current) return;
    hasStarted.current = true;
    mutate(code);
  }, [code, mutate]);

  if (!code) return <InvalidLinkCard />;
  if (cancel.isSuccess) return <CancelledCard />;
  if (cancel.isError) {
    // Only a 400 means the code was refused. A lost connection, a 429 or a server error left the
    // code unused, so the owner must be able to try again rather than be told it is dead.
    const isRefused = cancel.error instanceof ApiError && cancel.error.statusCode === 400;
    if (isRefused) return <InvalidLinkCard />;
    return (
      <AuthCard
        title="The change is not cancelled yet"
        icon={<AlertIcon width={28} height={28} />}
        tone="danger"
        subtitle="Nothing has changed yet, and your link still works. Try again in a moment."
      >
        <Button fullWidth onClick={() => mutate(code)}>
          Try Again
        </Button>
      </AuthCard>
    );
  }

  return (
    <AuthCard
      title="Cancelling the email change"
      icon={<LockIcon width={28} height={28} />}
      subtitle="One moment, please."
    />
  );
}

function CancelledCard(): React.JSX.Element {
  return (
    <AuthCard
      title="Email change cancelled"
      icon={<ShieldIcon width={28} height={28} />}
      subtitle="Your account keeps its email address, or has it back if the change had gone through already. Every device was signed out, this one too."
    >
      <p className={styles.warning}>
        <LockIcon width={20} height={20} className={styles.warningIcon} />
        <span>
          Whoever asked for the change knows your password, so it was cleared. Choose a new one to
          sign in again with your email.
        </span>
      </p>
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
