import { useEffect, useRef } from 'react';
import { Navigate, useNavigate, useSearchParams } from 'react-router';

import { paths } from '../../../config/paths';
import { ButtonLink } from '../../../shared/ui/button';
import { AuthCard } from '../../../shared/ui/card';
import { CheckIcon, MessageIcon } from '../../../shared/ui/icons/icon-set';
import { toasts } from '../../../shared/ui/toasts';
import { useVerifyEmail } from '../email-links-api';
import { useEmailLinksText } from '../email-links-text';

/**
 * `/account/verify-email?newEmail=…&code=…`, the emailed confirmation link: checks it at once,
 * then says so; a link that is incomplete or refused leads to Account Settings.
 */
export function VerifyEmailPage(): React.JSX.Element {
  const [searchParams] = useSearchParams();
  const navigate = useNavigate();
  const verify = useVerifyEmail();
  // A "+" that arrived as a space (a mail client decoding the link) is a "+" again.
  const newEmail = searchParams.get('newEmail')?.replace(/ /g, '+');
  const code = searchParams.get('code');
  const hasStarted = useRef(false);
  const { mutate } = verify;
  const text = useEmailLinksText();
  const invalidLink = text('verifyEmail.invalidLink');

  useEffect(() => {
    if (!newEmail || !code) {
      toasts.error(invalidLink, { id: invalidLink });
      return;
    }
    // Once per visit, even when React runs effects twice in development.
    if (hasStarted.current) return;
    hasStarted.current = true;
    mutate(
      { code, newEmail },
      { onError: () => void navigate(paths.dashboard.settings.getHref(), { replace: true }) },
    );
  }, [code, newEmail, mutate, navigate, invalidLink]);

  if (!newEmail || !code) return <Navigate to={paths.dashboard.settings.getHref()} replace />;

  if (verify.isSuccess) {
    return (
      <AuthCard
        title={text('verifyEmail.changedTitle')}
        icon={<CheckIcon width={28} height={28} />}
        subtitle={text('verifyEmail.signInWith', { email: newEmail })}
      >
        <ButtonLink to={paths.dashboard.settings.getHref()} fullWidth>
          {text('verifyEmail.goToSettings')}
        </ButtonLink>
      </AuthCard>
    );
  }

  return (
    <AuthCard
      title={text('verifyEmail.verifyingTitle')}
      icon={<MessageIcon width={28} height={28} />}
      subtitle={newEmail}
    />
  );
}
