import type { MemberStory, OperatorRole } from '@kegel/contract';
import { type ReactNode, useState } from 'react';

import { Button } from '../../../shared/ui/button';
import { useResendMail } from '../api';
import { useDeskText } from '../text';
import styles from './desk.module.css';
import { GrantDaysForm } from './grant-days-form';
import { NoteForm } from './note-form';
import { ReasonForm } from './reason-form';

type OpenForm = 'grant' | 'sign-out' | 'note' | null;

/** What an operator does for the member as a whole: days, sessions, mails, notes. */
export function MemberActions({
  member,
  role,
}: {
  member: MemberStory['profile'];
  role: OperatorRole;
}): React.JSX.Element {
  const text = useDeskText();
  const [open, setOpen] = useState<OpenForm>(null);
  const resend = useResendMail(member.id);
  const close = (): void => setOpen(null);

  return (
    <section className={styles.panel} aria-labelledby="actions-title">
      <h2 className={styles.sectionTitle} id="actions-title">
        {text('actions')}
      </h2>
      <div className={styles.actions}>
        <Action
          title={text('grantPremiumDays')}
          isOpen={open === 'grant'}
          onOpen={() => setOpen('grant')}
          openLabel={text('grantDays')}
        >
          <GrantDaysForm memberId={member.id} role={role} onDone={close} />
        </Action>
        <Action
          title={text('signOutEverywhere')}
          isOpen={open === 'sign-out'}
          onOpen={() => setOpen('sign-out')}
          openLabel={text('signOutEverywhere')}
        >
          <ReasonForm
            memberId={member.id}
            write={{ kind: 'sign-out-everywhere' }}
            label={text('signOutEverywhere')}
            submitLabel={text('signOutEverywhere')}
            question={text('signOutQuestion', { email: member.email })}
            confirmLabel={text('confirmSignOutEverywhere')}
            onDone={close}
          />
        </Action>
        <div className={styles.action}>
          <h3 className={styles.actionTitle}>{text('mails')}</h3>
          <div className={styles.formActions}>
            {member.emailVerifiedAt ? null : (
              <Button
                variant="outlined"
                size={38}
                disabled={resend.isPending}
                onClick={() => resend.mutate({ mail: 'verification' })}
              >
                {text('resendVerification')}
              </Button>
            )}
            <Button
              variant="outlined"
              size={38}
              disabled={resend.isPending}
              onClick={() => resend.mutate({ mail: 'password-reset' })}
            >
              {text('sendPasswordReset')}
            </Button>
          </div>
        </div>
        <Action
          title={text('note')}
          isOpen={open === 'note'}
          onOpen={() => setOpen('note')}
          openLabel={text('addNote')}
        >
          <NoteForm memberId={member.id} onDone={close} />
        </Action>
      </div>
    </section>
  );
}

function Action({
  title,
  isOpen,
  onOpen,
  openLabel,
  children,
}: {
  title: string;
  isOpen: boolean;
  onOpen: () => void;
  openLabel: string;
  children: ReactNode;
}): React.JSX.Element {
  return (
    <div className={styles.action}>
      <h3 className={styles.actionTitle}>{title}</h3>
      {isOpen ? (
        children
      ) : (
        <Button variant="outlined" size={38} onClick={onOpen}>
          {openLabel}
        </Button>
      )}
    </div>
  );
}
