import { twoStepMessages } from '@kegel/contract';
import { useEffect, useState } from 'react';
import { useLocation, useNavigate } from 'react-router';

import { ApiError } from '../../../shared/http/api-client';
import { localizeMessage } from '../../../shared/i18n/i18n';
import { useContractForm } from '../../../shared/forms/use-contract-form';
import { Button } from '../../../shared/ui/button';
import { AuthCard } from '../../../shared/ui/card';
import { ShieldIcon } from '../../../shared/ui/icons/icon-set';
import { TextInput } from '../../../shared/ui/text-input';
import { useVerifyTwoStep } from '../api';
import { appCodeFormSchema, recoveryCodeFormSchema } from '../form-schemas';
import { useAuthText } from '../text';
import { useGoOnAfterSignIn } from '../use-go-on-after-sign-in';
import styles from './auth-form.module.css';

/**
 * The second step of a sign-in with two-step sign-in on: the code from the authenticator app, or
 * (switched to) one of the recovery codes. A sign-in that expired or was used starts over.
 */
export function TwoStepCodeStep({ mfaToken }: { mfaToken: string }): React.JSX.Element {
  const text = useAuthText();
  const [usesRecoveryCode, setUsesRecoveryCode] = useState(false);
  const navigate = useNavigate();
  const { search } = useLocation();
  const startOver = () => void navigate({ search }, { replace: true, state: null });
  return (
    <AuthCard
      title={text('twoStepTitle')}
      icon={<ShieldIcon />}
      subtitle={text(usesRecoveryCode ? 'twoStepRecoveryCodeSubtitle' : 'twoStepAppCodeSubtitle')}
    >
      {usesRecoveryCode ? (
        <RecoveryCodeForm mfaToken={mfaToken} onExpired={startOver} />
      ) : (
        <AppCodeForm mfaToken={mfaToken} onExpired={startOver} />
      )}
      <div className={styles.social}>
        <Button variant="ghost" fullWidth onClick={() => setUsesRecoveryCode(!usesRecoveryCode)}>
          {text(usesRecoveryCode ? 'useAppCode' : 'useRecoveryCode')}
        </Button>
        <Button variant="ghost" fullWidth onClick={startOver}>
          {text('startOver')}
        </Button>
      </div>
    </AuthCard>
  );
}

interface CodeFormProps {
  mfaToken: string;
  /** The sign-in can no longer finish (expired, used, or too many wrong codes). */
  onExpired: () => void;
}

function useFinishSignIn(onExpired: () => void, showOnField: (error: Error) => boolean) {
  const verify = useVerifyTwoStep({ showOnField });
  const goOn = useGoOnAfterSignIn();
  const options = {
    onSuccess: goOn,
    onError: (error: Error) => {
      if (error instanceof ApiError && isSignInExpired(error.message)) onExpired();
    },
  };
  return { verify, options };
}

/** The server words its refusal in the page's language (or in English, without a translation). */
function isSignInExpired(message: string): boolean {
  const expired = twoStepMessages.signInExpired;
  return message === expired || message === localizeMessage(expired);
}

function AppCodeForm({ mfaToken, onExpired }: CodeFormProps): React.JSX.Element {
  const text = useAuthText();
  const { form, field, showOnField } = useContractForm(
    appCodeFormSchema,
    { code: '' },
    { serverMessages: { code: [twoStepMessages.wrongCode] } },
  );
  const { verify, options } = useFinishSignIn(onExpired, showOnField);
  // The step's one field: the member comes here to type into it.
  useEffect(() => form.setFocus('code'), [form]);
  const onSubmit = form.handleSubmit(({ code }) => verify.mutate({ mfaToken, code }, options));
  return (
    <form className={styles.form} onSubmit={onSubmit} noValidate aria-label={text('appCodeForm')}>
      <TextInput
        label={text('code')}
        inputMode="numeric"
        autoComplete="one-time-code"
        {...field('code')}
      />
      <Button type="submit" fullWidth disabled={verify.isPending}>
        {text('verify')}
      </Button>
    </form>
  );
}

function RecoveryCodeForm({ mfaToken, onExpired }: CodeFormProps): React.JSX.Element {
  const text = useAuthText();
  const { form, field, showOnField } = useContractForm(
    recoveryCodeFormSchema,
    { recoveryCode: '' },
    { serverMessages: { recoveryCode: [twoStepMessages.wrongRecoveryCode] } },
  );
  const { verify, options } = useFinishSignIn(onExpired, showOnField);
  useEffect(() => form.setFocus('recoveryCode'), [form]);
  const onSubmit = form.handleSubmit(({ recoveryCode }) =>
    verify.mutate({ mfaToken, recoveryCode }, options),
  );
  return (
    <form className={styles.form} onSubmit={onSubmit} noValidate aria-label={text('recoveryCode')}>
      <TextInput
        label={text('recoveryCode')}
        autoComplete="off"
        autoCapitalize="none"
        spellCheck={false}
        {...field('recoveryCode')}
      />
      <Button type="submit" fullWidth disabled={verify.isPending}>
        {text('verify')}
      </Button>
    </form>
  );
}
