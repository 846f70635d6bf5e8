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
import { useEffect, useMemo, useState } from 'react';
import { useNavigate } from 'react-router';

import { paths } from '../../../config/paths';
import { formatLongDate } from '../../../shared/format/dates';
import { useContractForm } from '../../../shared/forms/use-contract-form';
import { ApiError } from '../../../shared/http/api-client';
import '../../../shared/i18n/contract-messages';
import { localizeMessage } from '../../../shared/i18n/i18n';
import { sessionQueries, useProfile, useSignOut } from '../../../shared/session/session';
import { Button } from '../../../shared/ui/button';
import { Checkbox } from '../../../shared/ui/checkbox';
import { AlertIcon } from '../../../shared/ui/icons/icon-set';
import { PasswordInput } from '../../../shared/ui/password-input';
import { TextInput } from '../../../shared/ui/text-input';
import { Warning } from '../../../shared/ui/warning';
import { useDeleteAccount } from '../api';
import { useAccountText } from '../text';
import { EditableSection, FormActions, type SectionControls } from './editable-section';
import { SecondFactorField, secondFactorServerMessages } from './second-factor-field';
import styles from './settings.module.css';

/** The API's answer to a wrong current password (the same as for changing the password). */
export const WRONG_CURRENT_PASSWORD = authMessages.wrongCurrentPassword;

/**
 * The contract's form, and the box about the App Store subscription ticked, once it is shown;
 * `unticked` is what the box says when it is not (in the page's language).
 */
function deleteAccountWithAppStoreFormSchema(unticked: string) {
  return DeleteAccountFormSchema.check(
    z.refine((form) => form.keepsAppStoreSubscription === true, {
      message: unticked,
      path: ['keepsAppStoreSubscription'],
    }),
  );
}

/**
 * "Delete account", the last section of Account Settings: what deleting does, said plainly, and
 * a form that asks for the current password (or a recent sign-in for a Google or Apple account),
 * a current code while two-step sign-in is on, and the typed word DELETE.
 */
export function DeleteAccountSection({ hasPassword }: { hasPassword: boolean }): React.JSX.Element {
  const text = useAccountText();
  return (
    <EditableSection
      id="delete-account"
      title={text('delete.title')}
      summary={text('delete.summary')}
      openLabel={text('delete.title')}
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
  const text = useAccountText();
  const appStoreBoxUnticked = text('delete.appStoreBoxUnticked');
  const withAppStoreBox = useMemo(
    () => deleteAccountWithAppStoreFormSchema(appStoreBoxUnticked),
    [appStoreBoxUnticked],
  );

  const { form, field, showOnField } = useContractForm(
    asksAboutAppStore ? withAppStoreBox : DeleteAccountFormSchema,
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
      // The server answers in the page's language.
      error.message === localizeMessage(deleteAccountMessages.appStoreSubscriptionActive)
    ) {
      setServerSawAppStore(true);
      form.setError('keepsAppStoreSubscription', {
        type: 'server',
        message: appStoreBoxUnticked,
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
    <form className={styles.form} onSubmit={onSubmit} noValidate aria-label={text('delete.title')}>
      <div className={styles.prose}>
        <p>{text('delete.intro')}</p>
        <ul className={styles.consequences}>
          <li>{text('delete.signedOut')}</li>
          <li>{text('delete.erased')}</li>
          <li>{text('delete.purchasesKept')}</li>
          <li>{text('delete.emailReusable')}</li>
          <li>{text('delete.confirmationSent')}</li>
        </ul>
      </div>

      {webPassEndsAt ? (
        <Warning icon={AlertIcon}>
          <p>{text('delete.webPassEnds', { date: formatLongDate(webPassEndsAt) })}</p>
        </Warning>
      ) : null}

      {asksAboutAppStore ? (
        <Warning icon={AlertIcon}>
          <p id="delete-account-app-store-note">{text('delete.appStoreNote')}</p>
          <Checkbox
            label={text('delete.appStoreBox')}
            describedBy="delete-account-app-store-note"
            {...field('keepsAppStoreSubscription')}
          />
        </Warning>
      ) : null}

      {hasPassword ? (
        <PasswordInput
          label={text('form.currentPassword')}
          autoComplete="current-password"
          {...field('password')}
        />
      ) : (
        <SignInAgainNote message={signInAgainMessage} />
      )}

      {isTwoStepOn ? <SecondFactorField {...field('code')} /> : null}

      <TextInput
        label={text('delete.typeDelete')}
        autoComplete="off"
        autoCapitalize="characters"
        autoCorrect="off"
        spellCheck={false}
        {...field('confirmation')}
      />

      <FormActions
        isSubmitting={deleteAccount.isPending}
        onCancel={close}
        submitLabel={text('delete.title')}
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
  const text = useAccountText();
  return (
    <div className={styles.prose}>
      <p className={styles.value}>{text('delete.socialNote')}</p>
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
            {text('delete.signInAgain')}
          </Button>
        </Warning>
      ) : null}
    </div>
  );
}
