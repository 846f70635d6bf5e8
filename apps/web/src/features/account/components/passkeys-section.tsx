import {
  type PasskeyItem,
  RenamePasskeyRequestSchema,
  SecondFactorFormSchema,
} from '@kegel/contract';
import { browserSupportsWebAuthn } from '@simplewebauthn/browser';
import { useQuery } from '@tanstack/react-query';
import { useState } from 'react';

import { useIsAppRunning } from '../../../shared/browser/use-is-app-running';
import { useContractForm } from '../../../shared/forms/use-contract-form';
import { formatSessionDate } from '../../../shared/format/dates';
import { useProfile } from '../../../shared/session/session';
import { Button } from '../../../shared/ui/button';
import { Skeleton } from '../../../shared/ui/skeleton';
import { TextInput } from '../../../shared/ui/text-input';
import { useAccountText } from '../text';
import { passkeyListQuery, useAddPasskey, useRemovePasskey, useRenamePasskey } from '../api';
import { FormActions } from './editable-section';
import { SecondFactorField, secondFactorServerMessages } from './second-factor-field';
import styles from './settings.module.css';

/**
 * "Passkeys": sign in with a fingerprint, face or screen lock instead of a password. The member
 * adds one through the browser's own dialog, and sees, renames and removes each.
 */
export function PasskeysSection(): React.JSX.Element {
  const passkeys = useQuery(passkeyListQuery());
  const addPasskey = useAddPasskey();
  // While two-step sign-in is on, a current code comes first: a passkey signs in without one.
  const isTwoStepOn = useProfile().data?.twoStepEnabled === true;
  const [isAskingCode, setIsAskingCode] = useState(false);
  // A browser without WebAuthn (or a page not served over https) cannot add one. Asked once the
  // app runs: a prerendered page is drawn where there is no browser to ask.
  const isAppRunning = useIsAppRunning();
  const canAdd = isAppRunning && browserSupportsWebAuthn();
  const list = passkeys.data?.data ?? [];
  const text = useAccountText();

  return (
    <section className={styles.section} aria-labelledby="passkeys-title">
      <div className={styles.sectionHeader}>
        <div>
          <h2 className={styles.sectionTitle} id="passkeys-title">
            {text('passkeys.title')}
          </h2>
          <p className={styles.value}>{text('passkeys.summary')}</p>
        </div>
        {canAdd ? (
          <Button
            variant="outlined"
            size={44}
            disabled={addPasskey.isPending || isAskingCode}
            onClick={() => (isTwoStepOn ? setIsAskingCode(true) : addPasskey.mutate({}))}
          >
            {text('passkeys.add')}
          </Button>
        ) : null}
      </div>
      {canAdd && isTwoStepOn && isAskingCode ? (
        <AddWithCodeForm onDone={() => setIsAskingCode(false)} />
      ) : null}
      {canAdd ? null : <p className={styles.value}>{text('passkeys.cannotCreate')}</p>}
      {passkeys.isError ? (
        <p className={styles.value} role="alert">
          {text('passkeys.loadFailed', { reason: passkeys.error.message })}
        </p>
      ) : passkeys.isPending ? (
        <div aria-busy="true">
          <span className="visually-hidden">{text('passkeys.loading')}</span>
          <Skeleton className={styles.skeletonDevice} />
        </div>
      ) : list.length === 0 ? (
        <p className={styles.value}>{text('passkeys.none')}</p>
      ) : (
        <ul className={styles.devices} aria-labelledby="passkeys-title">
          {list.map((passkey) => (
            <PasskeyRow key={passkey.id} passkey={passkey} />
          ))}
        </ul>
      )}
    </section>
  );
}

/** One passkey: its name and dates, and Rename / Remove (each asks before it acts). */
function PasskeyRow({ passkey }: { passkey: PasskeyItem }): React.JSX.Element {
  const [mode, setMode] = useState<'show' | 'rename' | 'confirmRemove'>('show');
  const removePasskey = useRemovePasskey();
  const isTwoStepOn = useProfile().data?.twoStepEnabled === true;
  const text = useAccountText();
  const lastUsed = passkey.lastUsedAt
    ? text('passkeys.lastUsed', { date: formatSessionDate(passkey.lastUsedAt) })
    : text('passkeys.neverUsed');

  return (
    <li className={styles.device}>
      {mode === 'rename' ? (
        <RenamePasskeyForm passkey={passkey} onDone={() => setMode('show')} />
      ) : (
        <>
          <div className={styles.passkeyInfo}>
            <p className={styles.deviceName}>
              {passkey.name}
              {passkey.isSynced ? (
                <span className={styles.currentTag}>{text('passkeys.synced')}</span>
              ) : null}
            </p>
            <p className={styles.value}>
              {text('passkeys.dates', { date: formatSessionDate(passkey.createdAt), lastUsed })}
            </p>
            {removePasskey.isError ? (
              <p className={styles.inlineError} role="alert">
                {removePasskey.error.message}
              </p>
            ) : null}
          </div>
          {mode === 'confirmRemove' && isTwoStepOn ? (
            <RemoveWithCodeForm passkey={passkey} onDone={() => setMode('show')} />
          ) : mode === 'confirmRemove' ? (
            <div className={styles.actions}>
              <Button
                variant="danger"
                size={38}
                disabled={removePasskey.isPending}
                aria-label={text('passkeys.removeNowLabel', { name: passkey.name })}
                onClick={() =>
                  removePasskey.mutate({ id: passkey.id }, { onError: () => setMode('show') })
                }
              >
                {text('passkeys.remove')}
              </Button>
              <Button variant="ghost" size={38} onClick={() => setMode('show')}>
                {text('passkeys.keep')}
              </Button>
            </div>
          ) : (
            <div className={styles.actions}>
              <Button
                variant="outlined"
                size={38}
                aria-label={text('passkeys.renameLabel', { name: passkey.name })}
                onClick={() => setMode('rename')}
              >
                {text('passkeys.rename')}
              </Button>
              <Button
                variant="outlined"
                size={38}
                aria-label={text('passkeys.removeLabel', { name: passkey.name })}
                onClick={() => {
                  removePasskey.reset();
                  setMode('confirmRemove');
                }}
              >
                {text('passkeys.remove')}
              </Button>
            </div>
          )}
        </>
      )}
    </li>
  );
}

function RenamePasskeyForm({
  passkey,
  onDone,
}: {
  passkey: PasskeyItem;
  onDone: () => void;
}): React.JSX.Element {
  const { form, field } = useContractForm(RenamePasskeyRequestSchema, { name: passkey.name });
  const renamePasskey = useRenamePasskey();
  const text = useAccountText();
  const onSubmit = form.handleSubmit(({ name }) => {
    renamePasskey.mutate({ id: passkey.id, name }, { onSuccess: onDone });
  });
  return (
    <form
      className={styles.form}
      onSubmit={onSubmit}
      noValidate
      aria-label={text('passkeys.renameLabel', { name: passkey.name })}
    >
      <TextInput label={text('passkeys.name')} autoComplete="off" {...field('name')} />
      <FormActions
        isSubmitting={renamePasskey.isPending}
        onCancel={onDone}
        submitLabel={text('form.save')}
      />
    </form>
  );
}

/** Removing a passkey while two-step sign-in is on: a current code first (ADR 018). */
function RemoveWithCodeForm({
  passkey,
  onDone,
}: {
  passkey: PasskeyItem;
  onDone: () => void;
}): React.JSX.Element {
  const { form, field, showOnField } = useContractForm(
    SecondFactorFormSchema,
    { code: '' },
    { serverMessages: { code: secondFactorServerMessages } },
  );
  const removePasskey = useRemovePasskey({ showOnField });
  const text = useAccountText();
  const onSubmit = form.handleSubmit(({ code }) => {
    removePasskey.mutate({ id: passkey.id, code }, { onSuccess: onDone });
  });
  return (
    <form
      className={styles.form}
      onSubmit={onSubmit}
      noValidate
      aria-label={text('passkeys.removeLabel', { name: passkey.name })}
    >
      <SecondFactorField {...field('code')} />
      <FormActions
        isSubmitting={removePasskey.isPending}
        onCancel={onDone}
        submitLabel={text('passkeys.remove')}
      />
    </form>
  );
}

/** Adding a passkey while two-step sign-in is on: a current code first (ADR 018). */
function AddWithCodeForm({ onDone }: { onDone: () => void }): React.JSX.Element {
  const { form, field, showOnField } = useContractForm(
    SecondFactorFormSchema,
    { code: '' },
    { serverMessages: { code: secondFactorServerMessages } },
  );
  const addPasskey = useAddPasskey({ showOnField });
  const text = useAccountText();
  const onSubmit = form.handleSubmit(({ code }) => {
    addPasskey.mutate({ code }, { onSuccess: onDone });
  });
  return (
    <form className={styles.form} onSubmit={onSubmit} noValidate aria-label={text('passkeys.add')}>
      <SecondFactorField {...field('code')} />
      <FormActions
        isSubmitting={addPasskey.isPending}
        onCancel={onDone}
        submitLabel={text('form.continue')}
      />
    </form>
  );
}
