import { type ChangeEmailRequest, ChangeEmailRequestSchema } from '@kegel/contract';
import { zodResolver } from '@hookform/resolvers/zod';
import { useState } from 'react';
import { useForm } from 'react-hook-form';

import { Button } from '../../../shared/ui/button';
import { MessageSentIcon } from '../../../shared/ui/icons/icon-set';
import { PasswordInput } from '../../../shared/ui/password-input';
import { TextInput } from '../../../shared/ui/text-input';
import { withProgressToast } from '../../../shared/ui/toasts';
import { changeEmail } from '../api';
import styles from './settings.module.css';

/** The email section of Account Settings: the address, and a form behind 'Change Email'. */
export function ChangeEmailSection({ currentEmail }: { currentEmail: string }): React.JSX.Element {
  const [isOpen, setIsOpen] = useState(false);
  const [isSent, setIsSent] = useState(false);
  const form = useForm<ChangeEmailRequest>({
    resolver: zodResolver(ChangeEmailRequestSchema),
    defaultValues: { newEmail: '', password: '' },
  });
  const { errors, isSubmitting } = form.formState;

  const close = (): void => {
    form.reset();
    setIsOpen(false);
  };

  const onSubmit = form.handleSubmit(async (values) => {
    const sent = await withProgressToast(
      { pending: 'Changing email', success: 'Confirmation email sent successfully' },
      () => changeEmail(values),
    ).catch(() => undefined);
    if (sent) {
      setIsSent(true);
      close();
    }
  });

  return (
    <section className={styles.section} aria-labelledby="email-section-title">
      <div className={styles.sectionHeader}>
        <div>
          <h2 className={styles.sectionTitle} id="email-section-title">
            Email
          </h2>
          <p className={styles.value}>{currentEmail}</p>
        </div>
        {isOpen ? null : (
          <Button
            variant="outlined"
            size={44}
            onClick={() => {
              setIsSent(false);
              setIsOpen(true);
            }}
          >
            Change Email
          </Button>
        )}
      </div>
      {isSent ? (
        <p className={styles.note} role="status">
          <MessageSentIcon /> Please check your inbox to confirm new email.
        </p>
      ) : null}
      {isOpen ? (
        <form className={styles.form} onSubmit={onSubmit} noValidate aria-label="Change email">
          <TextInput
            label="New email"
            type="email"
            autoComplete="email"
            inputMode="email"
            error={errors.newEmail?.message}
            {...form.register('newEmail')}
          />
          <PasswordInput
            label="Current password"
            autoComplete="current-password"
            error={errors.password?.message}
            {...form.register('password')}
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
