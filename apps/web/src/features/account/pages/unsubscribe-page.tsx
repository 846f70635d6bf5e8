import { useSearchParams } from 'react-router';

import { paths } from '../../../config/paths';
import { ApiError } from '../../../shared/http/api-client';
import { Button, ButtonLink } from '../../../shared/ui/button';
import { AuthCard } from '../../../shared/ui/card';
import { AlertIcon, CheckIcon, MessageIcon } from '../../../shared/ui/icons/icon-set';
import { useUnsubscribe } from '../unsubscribe-api';

/** A link cut short by a mail client: the server's words for a bad token are its answer's. */
const NO_TOKEN =
  'This unsubscribe link is incomplete. You can turn reminders off in Account Settings.';

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

  if (!token) return <InvalidLinkCard message={NO_TOKEN} />;
  if (unsubscribe.isSuccess) {
    return (
      <AuthCard
        title="You are unsubscribed"
        icon={<CheckIcon width={28} height={28} />}
        subtitle={`${unsubscribe.data.message} You can turn reminders back on in Account Settings.`}
      >
        <ButtonLink to={paths.dashboard.settings.getHref()} fullWidth>
          Open Account Settings
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
      title="Stop the reminders before your premium ends?"
      icon={<MessageIcon width={28} height={28} />}
      subtitle="We email you once, three days before your premium ends, so you can extend it in time. Unsubscribe, and these reminders stop; mail about your account's security and your payments still comes."
    >
      <Button fullWidth disabled={unsubscribe.isPending} onClick={() => unsubscribe.mutate(token)}>
        Unsubscribe
      </Button>
    </AuthCard>
  );
}

function InvalidLinkCard({ message }: { message: string }): React.JSX.Element {
  return (
    <AuthCard
      title="This link does not work"
      icon={<AlertIcon width={28} height={28} />}
      tone="danger"
      subtitle={message}
    >
      <ButtonLink to={paths.dashboard.settings.getHref()} fullWidth>
        Open Account Settings
      </ButtonLink>
    </AuthCard>
  );
}
