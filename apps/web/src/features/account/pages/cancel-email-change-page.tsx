import { authMessages } from '@kegel/contract';
import { useEffect } from 'react';
import { Link, useSearchParams } from 'react-router';

import { paths } from '../../../config/paths';
import { ApiError } from '../../../shared/http/api-client';
import '../../../shared/i18n/contract-messages';
import { useCommonText } from '../../../shared/i18n/common-text';
import { localizeMessage } from '../../../shared/i18n/i18n';
import { RichText } from '../../../shared/i18n/rich-text';
import { Button, ButtonLink } from '../../../shared/ui/button';
import { AuthCard } from '../../../shared/ui/card';
import { AlertIcon, LockIcon, ShieldIcon } from '../../../shared/ui/icons/icon-set';
import { toasts } from '../../../shared/ui/toasts';
import { Warning } from '../../../shared/ui/warning';
import { useCancelEmailChange } from '../email-links-api';
import { useEmailLinksText } from '../email-links-text';
import styles from './cancel-email-change-page.module.css';

/** The server's words for a refused code, also shown for a link that lost its code. */
const invalidLinkMessage = () => localizeMessage(authMessages.undoLinkInvalid);

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
  const text = useEmailLinksText();

  useEffect(() => {
    if (!code) toasts.error(invalidLinkMessage(), { id: authMessages.undoLinkInvalid });
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
        title={text('cancelChange.notYetTitle')}
        icon={<AlertIcon width={28} height={28} />}
        tone="danger"
        subtitle={text('links.nothingChangedYet')}
      >
        <Button fullWidth onClick={() => cancel.mutate(code)}>
          {text('links.tryAgain')}
        </Button>
      </AuthCard>
    );
  }

  return (
    <AuthCard
      title={text('cancelChange.askTitle')}
      icon={<LockIcon width={28} height={28} />}
      subtitle={text('cancelChange.askSubtitle')}
    >
      <Button fullWidth disabled={cancel.isPending} onClick={() => cancel.mutate(code)}>
        {text('cancelChange.cancel')}
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

function AddressTakenCard({ message }: { message: string }): React.JSX.Element {
  const text = useEmailLinksText();
  return (
    <AuthCard
      title={text('cancelChange.addressTakenTitle')}
      icon={<AlertIcon width={28} height={28} />}
      tone="danger"
      subtitle={message}
    >
      <ButtonLink to={paths.auth.login.getHref()} fullWidth>
        {text('links.goToSignIn')}
      </ButtonLink>
    </AuthCard>
  );
}

function CancelledCard(): React.JSX.Element {
  const text = useEmailLinksText();
  const commonText = useCommonText();
  return (
    <AuthCard
      title={text('cancelChange.cancelledTitle')}
      icon={<ShieldIcon width={28} height={28} />}
      subtitle={text('cancelChange.cancelledSubtitle')}
    >
      <Warning icon={LockIcon}>
        <p>{text('cancelChange.passwordCleared')}</p>
      </Warning>
      <ButtonLink to={paths.auth.reset.getHref()} fullWidth>
        {text('cancelChange.choosePassword')}
      </ButtonLink>
      <ButtonLink to={paths.auth.login.getHref()} variant="outlined" fullWidth>
        {commonText('signIn')}
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
      subtitle={text('cancelChange.invalidLink', { reason: invalidLinkMessage() })}
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
