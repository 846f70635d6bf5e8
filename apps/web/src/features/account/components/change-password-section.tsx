import { type ChangePasswordForm, ChangePasswordFormSchema } from '@kegel/contract';
import { zodResolver } from '@hookform/resolvers/zod';
import { useState } from 'react';
import { useForm } from 'react-hook-form';

import { Button } from '../../../shared/ui/button';
import { CheckIcon } from '../../../shared/ui/icons/icon-set';
import { PasswordInput } from '../../../shared/ui/password-input';
import { withProgressToast } from '../../../shared/ui/toasts';
import { changePassword } from '../api';
import styles from './settings.module.css';

/** The Change Password section of Account Settings (spec §2). */
export function ChangePasswordSection(): React.JSX.Element {
  const [isOpen, setIsOpen] = useState(false);
  const [isChanged, setIsChanged] = useState(false);
  const form = useForm<ChangePasswordForm>({
    resolver: zodResolver(ChangePasswordFormSchema),
    defaultValues: { oldPassword: '', newPassword: '', confirmPassword: '' },
  });
  const { errors, isSubmitting } = form.formState;

  const close = (): void => {
    form.reset();
    setIsOpen(false);
  };

  const onSubmit = form.handleSubmit(async ({ oldPassword, newPassword }) => {
    const changed = await withProgressToast(
      { pending: 'Changing password', success: 'Password changed successfully' },
      () => changePassword({ oldPassword, newPassword }),
    ).catch(() => undefined);
    if (changed) {
      setIsChanged(true);
      close();
    }
  });

  return (
    <section className={styles.section} aria-labelledby="password-section-title">
      <div className={styles.sectionHeader}>
        <div>
          <h2 className={styles.sectionTitle} id="password-section-title">
            Change Password
          </h2>
          <p className={styles.value}>At least 8 characters. Other devices are signed out.</p>
        </div>
        {isOpen ? null : (
          <Button
            variant="outlined"
            size={44}
            onClick={() => {
              setIsChanged(false);
              setIsOpen(true);
            }}
          >
            Change Password
          </Button>
        )}
      </div>
      {isChanged ? (
        <p className={styles.note} role="status">
          <CheckIcon /> Password successfully changed.
        </p>
      ) : null}
      {isOpen ? (
        <form className={styles.form} onSubmit={onSubmit} noValidate aria-label="Change password">
          <PasswordInput
            label="Current password"
            autoComplete="current-password"
            error={errors.oldPassword?.message}
            {...form.register('oldPassword')}
          />
          <PasswordInput
            label="New password"
            autoComplete="new-password"
            error={errors.newPassword?.message}
            {...form.register('newPassword')}
          />
          <PasswordInput
            label="Repeat new password"
            autoComplete="new-password"
            error={errors.confirmPassword?.message}
            {...form.register('confirmPassword')}
          />
          <div className={styles.actions}>
            <Button type="submit" size={44} disabled={isSubmitting}>
              Save Changes
            </Button>
            <Button variant="ghost" size={44} onClick={close}>
              Cancel
            </Button>
          </div>
        </form>
      ) : null}
    </section>
  );
}
