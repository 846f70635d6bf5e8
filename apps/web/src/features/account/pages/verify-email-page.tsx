import { useQueryClient } from '@tanstack/react-query';
import { useEffect, useRef, useState } from 'react';
import { Navigate, useNavigate, useSearchParams } from 'react-router';
import { toast } from 'react-toastify';

import { paths } from '../../../config/paths';
import { sessionQueries } from '../../../shared/session/session';
import { ButtonLink } from '../../../shared/ui/button';
import { AuthCard } from '../../../shared/ui/card';
import { CheckIcon, MessageIcon } from '../../../shared/ui/icons/icon-set';
import { withProgressToast } from '../../../shared/ui/toasts';
import { verifyEmail } from '../api';

const INVALID_LINK = 'Invalid link. Please, try again.';

/** `/account/verify-email?newEmail=…&code=…` (spec §2, §4): the emailed confirmation link. */
export function VerifyEmailPage(): React.JSX.Element {
  const [searchParams] = useSearchParams();
  const navigate = useNavigate();
  const queryClient = useQueryClient();
  // A "+" that arrived as a space is restored (spec §4).
  const newEmail = searchParams.get('newEmail')?.replace(/ /g, '+');
  const code = searchParams.get('code');
  const [isVerified, setIsVerified] = useState(false);
  const hasStarted = useRef(false);

  useEffect(() => {
    if (!newEmail || !code) {
      toast.error(INVALID_LINK, { toastId: INVALID_LINK });
      return;
    }
    // Once per visit, even when React runs effects twice in development.
    if (hasStarted.current) return;
    hasStarted.current = true;
    withProgressToast({ pending: 'Verifying email', success: 'Email successfully changed' }, () =>
      verifyEmail({ code, newEmail }),
    )
      .then(async () => {
        setIsVerified(true);
        await queryClient.invalidateQueries({ queryKey: sessionQueries.all() });
      })
      .catch(() => navigate(paths.dashboard.settings.getHref(), { replace: true }));
  }, [code, newEmail, navigate, queryClient]);

  if (!newEmail || !code) return <Navigate to={paths.dashboard.settings.getHref()} replace />;

  if (isVerified) {
    return (
      <AuthCard
        title="Email changed successfully"
        icon={<CheckIcon width={28} height={28} />}
        subtitle={`From now on, sign in with ${newEmail}.`}
      >
        <ButtonLink to={paths.dashboard.settings.getHref()} fullWidth>
          Go to Account Settings
        </ButtonLink>
      </AuthCard>
    );
  }

  return (
    <AuthCard
      title="Verifying email"
      icon={<MessageIcon width={28} height={28} />}
      subtitle={newEmail}
    />
  );
}
