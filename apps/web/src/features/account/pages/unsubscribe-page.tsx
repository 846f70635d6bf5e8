import { useSearchParams } from 'react-router';

import { paths } from '../../../config/paths';
import { ApiError } from '../../../shared/http/api-client';
import { Button, ButtonLink } from '../../../shared/ui/button';
import { AuthCard } from '../../../shared/ui/card';
import { AlertIcon, CheckIcon, MessageIcon } from '../../../shared/ui/icons/icon-set';
import { useEmailLinksText } from '../email-links-text';
import { useUnsubscribe } from '../unsubscribe-api';

/**
 * `/account/unsubscribe?token=…`, the "Stop these reminders" link at the foot of the mail sent
 * before premium ends (the API's GET of its List-Unsubscribe link leads here too). Opening it
 * changes nothing: mail scanners fetch every link of a mail, and must not unsubscribe anyone. The
 * button does, signed in or not: the token names the member and what it turns off.
 */
export function UnsubscribePage(): React.JSX.Element {
  const [searchParams] = useSearchParams();
  const token = searchParams.get('token');
  const unsubscribe = useUnsubscribe();
  const text = useEmailLinksText();

  // A link cut short by a mail client: the server's words for a bad token are its answer's.
  if (!token) return <InvalidLinkCard message={text('unsubscribe.incompleteLink')} />;
  if (unsubscribe.isSuccess) {
    return (
      <AuthCard
        title={text('unsubscribe.doneTitle')}
        icon={<CheckIcon width={28} height={28} />}
        subtitle={text('unsubscribe.doneSubtitle', { message: unsubscribe.data.message })}
      >
        <ButtonLink to={paths.dashboard.settings.getHref()} fullWidth>
          {text('links.openSettings')}
        </ButtonLink>
      </AuthCard>
    );
  }
  if (unsubscribe.isError && unsubscribe.error instanceof ApiError) {
    const { statusCode, message } = unsubscribe.error;
    // Refused for good: a token not ours, or an account that is gone.
    if (statusCode === 400 || statusCode === 404) return <InvalidLinkCard message={message} />;
  }
  return (
    <AuthCard
      title={text('unsubscribe.askTitle')}
      icon={<MessageIcon width={28} height={28} />}
      subtitle={text('unsubscribe.askSubtitle')}
    >
      <Button fullWidth disabled={unsubscribe.isPending} onClick={() => unsubscribe.mutate(token)}>
        {text('unsubscribe.unsubscribe')}
      </Button>
    </AuthCard>
  );
}

function InvalidLinkCard({ message }: { message: string }): React.JSX.Element {
  const text = useEmailLinksText();
  return (
    <AuthCard
      title={text('links.doesNotWork')}
      icon={<AlertIcon width={28} height={28} />}
      tone="danger"
      subtitle={message}
    >
      <ButtonLink to={paths.dashboard.settings.getHref()} fullWidth>
        {text('links.openSettings')}
      </ButtonLink>
    </AuthCard>
  );
}
