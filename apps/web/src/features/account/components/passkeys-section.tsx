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

  return (
    <section className={styles.section} aria-labelledby="passkeys-title">
      <div className={styles.sectionHeader}>
        <div>
          <h2 className={styles.sectionTitle} id="passkeys-title">
            Passkeys
          </h2>
          <p className={styles.value}>
            Sign in with your fingerprint, face or screen lock instead of a password.
          </p>
        </div>
        {canAdd ? (
          <Button
            variant="outlined"
            size={44}
            disabled={addPasskey.isPending || isAskingCode}
            onClick={() => (isTwoStepOn ? setIsAskingCode(true) : addPasskey.mutate({}))}
          >
            Add a passkey
          </Button>
        ) : null}
      </div>
      {canAdd && isTwoStepOn && isAskingCode ? (
        <AddWithCodeForm onDone={() => setIsAskingCode(false)} />
      ) : null}
      {canAdd ? null : <p className={styles.value}>This browser cannot create passkeys.</p>}
      {passkeys.isError ? (
        <p className={styles.value} role="alert">
          Your passkeys could not be loaded. {passkeys.error.message}
        </p>
      ) : passkeys.isPending ? (
        <div aria-busy="true">
          <span className="visually-hidden">Loading your passkeys</span>
          <Skeleton className={styles.skeletonDevice} />
        </div>
      ) : list.length === 0 ? (
        <p className={styles.value}>You have no passkeys yet.</p>
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
  const lastUsed = passkey.lastUsedAt
    ? `Last used ${formatSessionDate(passkey.lastUsedAt)}`
    : 'Never used';

  return (
    <li className={styles.device}>
      {mode === 'rename' ? (
        <RenamePasskeyForm passkey={passkey} onDone={() => setMode('show')} />
      ) : (
        <>
          <div className={styles.passkeyInfo}>
            <p className={styles.deviceName}>
              {passkey.name}
              {passkey.isSynced ? <span className={styles.currentTag}>Synced</span> : null}
            </p>
            <p className={styles.value}>
              Added {formatSessionDate(passkey.createdAt)} · {lastUsed}
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
                aria-label={`Remove ${passkey.name} now`}
                onClick={() =>
                  removePasskey.mutate({ id: passkey.id }, { onError: () => setMode('show') })
                }
              >
                Remove
              </Button>
              <Button variant="ghost" size={38} onClick={() => setMode('show')}>
                Keep
              </Button>
            </div>
          ) : (
            <div className={styles.actions}>
              <Button
                variant="outlined"
                size={38}
                aria-label={`Rename ${passkey.name}`}
                onClick={() => setMode('rename')}
              >
                Rename
              </Button>
              <Button
                variant="outlined"
                size={38}
                aria-label={`Remove ${passkey.name}`}
                onClick={() => {
                  removePasskey.reset();
                  setMode('confirmRemove');
                }}
              >
                Remove
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
  const onSubmit = form.handleSubmit(({ name }) => {
    renamePasskey.mutate({ id: passkey.id, name }, { onSuccess: onDone });
  });
  return (
    <form
      className={styles.form}
      onSubmit={onSubmit}
      noValidate
      aria-label={`Rename ${passkey.name}`}
    >
      <TextInput label="Passkey name" autoComplete="off" {...field('name')} />
      <FormActions isSubmitting={renamePasskey.isPending} onCancel={onDone} submitLabel="Save" />
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
  const onSubmit = form.handleSubmit(({ code }) => {
    removePasskey.mutate({ id: passkey.id, code }, { onSuccess: onDone });
  });
  return (
    <form
      className={styles.form}
      onSubmit={onSubmit}
      noValidate
      aria-label={`Remove ${passkey.name}`}
    >
      <SecondFactorField {...field('code')} />
      <FormActions isSubmitting={removePasskey.isPending} onCancel={onDone} submitLabel="Remove" />
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
  const onSubmit = form.handleSubmit(({ code }) => {
    addPasskey.mutate({ code }, { onSuccess: onDone });
  });
  return (
    <form className={styles.form} onSubmit={onSubmit} noValidate aria-label="Add a passkey">
      <SecondFactorField {...field('code')} />
      <FormActions isSubmitting={addPasskey.isPending} onCancel={onDone} submitLabel="Continue" />
    </form>
  );
}
