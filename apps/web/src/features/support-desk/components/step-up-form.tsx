import {
  OPERATOR_SECOND_FACTOR_HOURS,
  type OperatorStatus,
  StepUpRequestSchema,
  twoStepMessages,
} from '@kegel/contract';
import { useLocation, useNavigate } from 'react-router';

import { paths } from '../../../config/paths';
import { useContractForm } from '../../../shared/forms/use-contract-form';
import { useSignOut } from '../../../shared/session/session';
import { Button } from '../../../shared/ui/button';
import { TextInput } from '../../../shared/ui/text-input';
import { useStepUp } from '../api';
import { inEitherLanguage } from '../server-refusals';
import { useDeskText } from '../text';
import styles from './desk.module.css';

/**
 * "Confirm your second factor": the desk opens for 12 hours to a session that proved one. A code
 * from the authenticator app or a recovery code does it here; a passkey does it at sign-in, so an
 * operator with a passkey may sign in again with it instead.
 */
export function StepUpForm({ operator }: { operator: OperatorStatus }): React.JSX.Element {
  const text = useDeskText();
  const { form, field, showOnField } = useContractForm(
    StepUpRequestSchema,
    { code: '' },
    {
      serverMessages: {
        // The server words them in the page's language.
        code: inEitherLanguage([
          twoStepMessages.wrongSecondFactor,
          twoStepMessages.secondFactorNeeded,
          twoStepMessages.wrongCode,
          twoStepMessages.wrongRecoveryCode,
        ]),
      },
    },
  );
  const stepUp = useStepUp({ showOnField });
  const signOut = useSignOut();
  const navigate = useNavigate();
  const location = useLocation();

  async function signInAgainWithPasskey(): Promise<void> {
    const here = `${location.pathname}${location.search}`;
    await signOut.mutateAsync();
    await navigate(paths.auth.login.getHref(here), { replace: true });
  }

  return (
    <section className={styles.stepUp} aria-labelledby="step-up-title">
      <h1 className={styles.stepUpTitle} id="step-up-title">
        {text('confirmSecondFactor')}
      </h1>
      <p className={styles.muted}>
        {text('opensForHours', { hours: OPERATOR_SECOND_FACTOR_HOURS })}
      </p>
      {operator.hasTwoStep ? (
        <form
          className={styles.form}
          noValidate
          onSubmit={form.handleSubmit((values) => stepUp.mutate(values))}
        >
          <TextInput
            label={text('code')}
            hint={text('codeHint')}
            autoComplete="one-time-code"
            autoCapitalize="none"
            spellCheck={false}
            {...field('code')}
          />
          <Button type="submit" disabled={stepUp.isPending} fullWidth>
            {text('confirm')}
          </Button>
        </form>
      ) : null}
      {operator.hasPasskey ? (
        <div className={styles.passkeyHint}>
          <p className={styles.muted}>
            {operator.hasTwoStep ? text('orPasskey') : text('passkeyOnly')}
          </p>
          <Button
            variant="outlined"
            size={44}
            onClick={signInAgainWithPasskey}
            disabled={signOut.isPending}
          >
            {text('signInWithPasskey')}
          </Button>
        </div>
      ) : null}
    </section>
  );
}
