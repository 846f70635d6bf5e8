import {
  isAuthenticatorCode,
  RenewRecoveryCodesRequestSchema,
  SecondFactorFormSchema,
  TwoStepConfirmRequestSchema,
  twoStepMessages,
  type TwoStepSetupResponse,
} from '@kegel/contract';
import { useState } from 'react';

import { useContractForm } from '../../../shared/forms/use-contract-form';
import { Button } from '../../../shared/ui/button';
import { TextInput } from '../../../shared/ui/text-input';
import {
  useConfirmTwoStep,
  useRenewRecoveryCodes,
  useSetUpTwoStep,
  useTurnOffTwoStep,
} from '../api';
import { useAccountText } from '../text';
import { FormActions } from './editable-section';
import { QrCode } from './qr-code';
import { RecoveryCodes } from './recovery-codes';
import settingsStyles from './settings.module.css';
import styles from './two-step.module.css';

type View =
  | { kind: 'summary' }
  | { kind: 'setting-up'; setup: TwoStepSetupResponse }
  | { kind: 'recovery-codes'; codes: string[] }
  | { kind: 'turning-off' }
  | { kind: 'renewing-codes' };

/**
 * 'Two-step sign-in' in Account Settings: turn it on with an authenticator app (scan, confirm
 * with a code, save the recovery codes), make new recovery codes, or turn it off.
 */
export function TwoStepSection({ isOn }: { isOn: boolean }): React.JSX.Element {
  const [view, setView] = useState<View>({ kind: 'summary' });
  const setUp = useSetUpTwoStep();
  const backToSummary = () => setView({ kind: 'summary' });
  const showCodes = (codes: string[]) => setView({ kind: 'recovery-codes', codes });
  const text = useAccountText();

  return (
    <section className={settingsStyles.section} aria-labelledby="two-step-title">
      <div className={settingsStyles.sectionHeader}>
        <div>
          <h2 className={settingsStyles.sectionTitle} id="two-step-title">
            {text('twoStep.title')}
          </h2>
          <p className={settingsStyles.value}>
            {text(isOn ? 'twoStep.onSummary' : 'twoStep.offSummary')}
          </p>
        </div>
        {view.kind !== 'summary' ? null : isOn ? (
          <div className={settingsStyles.actions}>
            <Button
              variant="outlined"
              size={44}
              onClick={() => setView({ kind: 'renewing-codes' })}
            >
              {text('twoStep.newRecoveryCodes')}
            </Button>
            <Button variant="outlined" size={44} onClick={() => setView({ kind: 'turning-off' })}>
              {text('twoStep.turnOff')}
            </Button>
          </div>
        ) : (
          <Button
            variant="outlined"
            size={44}
            disabled={setUp.isPending}
            onClick={() =>
              setUp.mutate(undefined, {
                onSuccess: (setup) => setView({ kind: 'setting-up', setup }),
              })
            }
          >
            {text('twoStep.turnOn')}
          </Button>
        )}
      </div>
      {view.kind === 'setting-up' ? (
        <SetUpPanel setup={view.setup} onConfirmed={showCodes} onCancel={backToSummary} />
      ) : null}
      {view.kind === 'recovery-codes' ? (
        <RecoveryCodes codes={view.codes} onDone={backToSummary} />
      ) : null}
      {view.kind === 'turning-off' ? (
        <TurnOffForm onDone={backToSummary} onCancel={backToSummary} />
      ) : null}
      {view.kind === 'renewing-codes' ? (
        <RenewCodesForm onRenewed={showCodes} onCancel={backToSummary} />
      ) : null}
    </section>
  );
}

/** The secret in groups of four, easier to type into an app by hand. */
function grouped(secret: string): string {
  return secret.replace(/(.{4})(?=.)/g, '$1 ');
}

function SetUpPanel({
  setup,
  onConfirmed,
  onCancel,
}: {
  setup: TwoStepSetupResponse;
  onConfirmed: (codes: string[]) => void;
  onCancel: () => void;
}): React.JSX.Element {
  const { form, field, showOnField } = useContractForm(
    TwoStepConfirmRequestSchema,
    { code: '' },
    { serverMessages: { code: [twoStepMessages.wrongCode] } },
  );
  const confirm = useConfirmTwoStep({ showOnField });
  const text = useAccountText();
  const onSubmit = form.handleSubmit((values) =>
    confirm.mutate(values, { onSuccess: ({ recoveryCodes }) => onConfirmed(recoveryCodes) }),
  );
  return (
    <div className={styles.panel}>
      <div className={styles.setup}>
        <div className={styles.qr}>
          <QrCode text={setup.otpauthUrl} label={text('twoStep.qrLabel')} />
        </div>
        <div className={styles.steps}>
          <h3 className={styles.panelTitle}>{text('twoStep.scanStep')}</h3>
          <p className={styles.hint}>{text('twoStep.cannotScan')}</p>
          <p className={styles.secret} aria-label={text('twoStep.setupKey')}>
            {grouped(setup.secret)}
          </p>
          <h3 className={styles.panelTitle}>{text('twoStep.codeStep')}</h3>
          <form
            className={settingsStyles.form}
            onSubmit={onSubmit}
            noValidate
            aria-label={text('twoStep.confirmFormLabel')}
          >
            <TextInput
              label={text('twoStep.code')}
              inputMode="numeric"
              autoComplete="one-time-code"
              {...field('code')}
            />
            <FormActions
              isSubmitting={confirm.isPending}
              onCancel={onCancel}
              submitLabel={text('twoStep.turnOn')}
            />
          </form>
        </div>
      </div>
    </div>
  );
}

function TurnOffForm({
  onDone,
  onCancel,
}: {
  onDone: () => void;
  onCancel: () => void;
}): React.JSX.Element {
  const { form, field, showOnField } = useContractForm(
    SecondFactorFormSchema,
    { code: '' },
    {
      serverMessages: { code: [twoStepMessages.wrongCode, twoStepMessages.wrongRecoveryCode] },
    },
  );
  const turnOff = useTurnOffTwoStep({ showOnField });
  const text = useAccountText();
  const onSubmit = form.handleSubmit(({ code }) =>
    turnOff.mutate(isAuthenticatorCode(code) ? { code } : { recoveryCode: code }, {
      onSuccess: onDone,
    }),
  );
  return (
    <form
      className={settingsStyles.form}
      onSubmit={onSubmit}
      noValidate
      aria-label={text('twoStep.turnOffFormLabel')}
    >
      <TextInput
        label={text('twoStep.codeOrRecoveryCode')}
        autoComplete="one-time-code"
        autoCapitalize="none"
        spellCheck={false}
        {...field('code')}
      />
      <FormActions
        isSubmitting={turnOff.isPending}
        onCancel={onCancel}
        submitLabel={text('twoStep.turnOff')}
        submitVariant="danger"
      />
    </form>
  );
}

function RenewCodesForm({
  onRenewed,
  onCancel,
}: {
  onRenewed: (codes: string[]) => void;
  onCancel: () => void;
}): React.JSX.Element {
  const { form, field, showOnField } = useContractForm(
    RenewRecoveryCodesRequestSchema,
    { code: '' },
    { serverMessages: { code: [twoStepMessages.wrongCode] } },
  );
  const renew = useRenewRecoveryCodes({ showOnField });
  const text = useAccountText();
  const onSubmit = form.handleSubmit((values) =>
    renew.mutate(values, { onSuccess: ({ recoveryCodes }) => onRenewed(recoveryCodes) }),
  );
  return (
    <form
      className={settingsStyles.form}
      onSubmit={onSubmit}
      noValidate
      aria-label={text('twoStep.newRecoveryCodes')}
    >
      <p className={styles.hint}>{text('twoStep.renewHint')}</p>
      <TextInput
        label={text('twoStep.codeFromApp')}
        inputMode="numeric"
        autoComplete="one-time-code"
        {...field('code')}
      />
      <FormActions
        isSubmitting={renew.isPending}
        onCancel={onCancel}
        submitLabel={text('twoStep.makeNewCodes')}
      />
    </form>
  );
}
