import {
  type DeleteAccountRequest,
  DeleteAccountFormSchema,
  deleteAccountMessages,
  isRunningPurchase,
  type PurchaseItem,
  authMessages,
} from '@kegel/contract';
import { useQuery } from '@tanstack/react-query';
import { z } from 'zod/mini';
import { useEffect, useState } from 'react';
import { useNavigate } from 'react-router';

import { paths } from '../../../config/paths';
import { formatLongDate } from '../../../shared/format/dates';
import { useContractForm } from '../../../shared/forms/use-contract-form';
import { ApiError } from '../../../shared/http/api-client';
import { sessionQueries, useProfile, useSignOut } from '../../../shared/session/session';
import { Button } from '../../../shared/ui/button';
import { Checkbox } from '../../../shared/ui/checkbox';
import { AlertIcon } from '../../../shared/ui/icons/icon-set';
import { PasswordInput } from '../../../shared/ui/password-input';
import { TextInput } from '../../../shared/ui/text-input';
import { Warning } from '../../../shared/ui/warning';
import { useDeleteAccount } from '../api';
import { EditableSection, FormActions, type SectionControls } from './editable-section';
import { SecondFactorField, secondFactorServerMessages } from './second-factor-field';
import styles from './settings.module.css';

/** The API's answer to a wrong current password (the same as for changing the password). */
export const WRONG_CURRENT_PASSWORD = authMessages.wrongCurrentPassword;

const APP_STORE_BOX_UNTICKED =
  'Tick this box to confirm that your App Store subscription continues after you delete your account';

/** The contract's form, and the box about the App Store subscription ticked, once it is shown. */
const DeleteAccountWithAppStoreFormSchema = DeleteAccountFormSchema.check(
  z.refine((form) => form.keepsAppStoreSubscription === true, {
    message: APP_STORE_BOX_UNTICKED,
    path: ['keepsAppStoreSubscription'],
  }),
);

/**
 * "Delete account", the last section of Account Settings: what deleting does, said plainly, and
 * a form that asks for the current password (or a recent sign-in for a Google or Apple account),
 * a current code while two-step sign-in is on, and the typed word DELETE.
 */
export function DeleteAccountSection({ hasPassword }: { hasPassword: boolean }): React.JSX.Element {
  return (
    <EditableSection
      id="delete-account"
      title="Delete account"
      summary="Erase your account and your personal details. This cannot be undone."
      openLabel="Delete account"
      openVariant="danger"
    >
      {(controls) => <DeleteAccountForm hasPassword={hasPassword} {...controls} />}
    </EditableSection>
  );
}

/** The purchases still running, by where they were bought (refunded ones count for nothing). */
function runningPurchases(purchases: PurchaseItem[], now: number) {
  const running = purchases.filter((item) => isRunningPurchase(item, now));
  const webEnds = running
    .filter((item) => item.provider === 'Stripe')
    .map((item) => item.expiresAt)
    .sort((a, b) => new Date(b).getTime() - new Date(a).getTime());
  return {
    webPassEndsAt: webEnds[0],
    hasAppStore: running.some((item) => item.provider === 'Apple'),
  };
}

function DeleteAccountForm({
  hasPassword,
  close,
}: { hasPassword: boolean } & SectionControls): React.JSX.Element {
  const purchases = useQuery(sessionQueries.purchases());
  // Read once per mount: the notes do not flip while someone reads them.
  const [now] = useState(() => Date.now());
  const { webPassEndsAt, hasAppStore } = runningPurchases(purchases.data?.data ?? [], now);
  /** The server said an App Store subscription is active, whatever the list says. */
  const [serverSawAppStore, setServerSawAppStore] = useState(false);
  /** A Google or Apple account whose sign-in is too old (403). */
  const [signInAgainMessage, setSignInAgainMessage] = useState<string | null>(null);
  const asksAboutAppStore = hasAppStore || serverSawAppStore;
  // A password and a session are not enough while two-step sign-in is on (ADR 018).
  const isTwoStepOn = useProfile().data?.twoStepEnabled === true;

  const { form, field, showOnField } = useContractForm(
    asksAboutAppStore ? DeleteAccountWithAppStoreFormSchema : DeleteAccountFormSchema,
    hasPassword
      ? { password: '', confirmation: '', keepsAppStoreSubscription: false }
      : { confirmation: '', keepsAppStoreSubscription: false },
    {
      serverMessages: {
        password: [deleteAccountMessages.passwordNeeded, WRONG_CURRENT_PASSWORD],
        code: secondFactorServerMessages,
      },
    },
  );

  // After a 409 the App Store note and its box appear: the box is where the person goes next.
  useEffect(() => {
    if (serverSawAppStore) form.setFocus('keepsAppStoreSubscription');
  }, [serverSawAppStore, form]);

  /** What the form itself shows of a refusal, so that no toast repeats it. */
  function showInForm(error: Error): boolean {
    // The other 409 (an email change its previous address can still undo) is a toast.
    if (
      error instanceof ApiError &&
      error.statusCode === 409 &&
      error.message === deleteAccountMessages.appStoreSubscriptionActive
    ) {
      setServerSawAppStore(true);
      form.setError('keepsAppStoreSubscription', {
        type: 'server',
        message: APP_STORE_BOX_UNTICKED,
      });
      return true;
    }
    if (error instanceof ApiError && error.statusCode === 403 && !hasPassword) {
      setSignInAgainMessage(error.message);
      return true;
    }
    return showOnField(error);
  }

  const deleteAccount = useDeleteAccount({ showOnField: showInForm });

  // The typed word is checked by the form and never sent.
  const onSubmit = form.handleSubmit((values) => {
    const request: DeleteAccountRequest = {};
    if (hasPassword) request.password = values.password;
    if (asksAboutAppStore) request.keepsAppStoreSubscription = true;
    if (isTwoStepOn) request.code = values.code;
    setSignInAgainMessage(null);
    deleteAccount.mutate(request);
  });

  return (
    <form className={styles.form} onSubmit={onSubmit} noValidate aria-label="Delete account">
      <div className={styles.prose}>
        <p>When you delete your account:</p>
        <ul className={styles.consequences}>
          <li>You are signed out everywhere, on every device.</li>
          <li>Your email, your sign-in methods and your personal details are erased.</li>
          <li>Your purchase records are kept for accounting, tied to no one.</li>
          <li>Your email address can register again later, as a new account.</li>
          <li>We send a confirmation to your email.</li>
        </ul>
      </div>

      {webPassEndsAt ? (
        <Warning icon={AlertIcon}>
          <p>
            Your premium pass until {formatLongDate(webPassEndsAt)} ends with your account and is
            not refunded.
          </p>
        </Warning>
      ) : null}

      {asksAboutAppStore ? (
        <Warning icon={AlertIcon}>
          <p id="delete-account-app-store-note">
            Deleting your account does not cancel your App Store subscription. To stop paying,
            cancel it on your iPhone: Settings → your name → Subscriptions.
          </p>
          <Checkbox
            label="I understand that my App Store subscription continues until I cancel it"
            describedBy="delete-account-app-store-note"
            {...field('keepsAppStoreSubscription')}
          />
        </Warning>
      ) : null}

      {hasPassword ? (
        <PasswordInput
          label="Current password"
          autoComplete="current-password"
          {...field('password')}
        />
      ) : (
        <SignInAgainNote message={signInAgainMessage} />
      )}

      {isTwoStepOn ? <SecondFactorField {...field('code')} /> : null}

      <TextInput
        label="Type DELETE to confirm"
        autoComplete="off"
        autoCapitalize="characters"
        autoCorrect="off"
        spellCheck={false}
        {...field('confirmation')}
      />

      <FormActions
        isSubmitting={deleteAccount.isPending}
        onCancel={close}
        submitLabel="Delete account"
        submitVariant="danger"
      />
    </form>
  );
}

/**
 * A Google or Apple account has no password to confirm with: the server wants a sign-in within
 * the last 10 minutes instead, and says so with a 403; then signing in again is the way on.
 */
function SignInAgainNote({ message }: { message: string | null }): React.JSX.Element {
  const signOut = useSignOut();
  const navigate = useNavigate();
  return (
    <div className={styles.prose}>
      <p className={styles.value}>
        You signed in with Google or Apple. For your safety, deleting needs a sign-in within the
        last 10 minutes.
      </p>
      {message ? (
        <Warning>
          <p role="alert">{message}</p>
          <Button
            variant="outlined"
            size={44}
            disabled={signOut.isPending}
            onClick={async () => {
              // Awaited, not a callback: forgetting the tokens unmounts this form.
              await signOut.mutateAsync();
              await navigate(paths.auth.login.getHref(paths.dashboard.settings.getHref()), {
                replace: true,
              });
            }}
          >
            Sign in again
          </Button>
        </Warning>
      ) : null}
    </div>
  );
}
