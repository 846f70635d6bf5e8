import { useQuery } from '@tanstack/react-query';

import { formatLongDate } from '../../../shared/format/dates';
import { Button } from '../../../shared/ui/button';
import { emailChangeUndoQuery, useCloseEmailChangeUndo } from '../api';
import styles from './settings.module.css';

/**
 * After an email change, the address it left can take the account back for 72 hours with the
 * link mailed to it (ADR 016). The member sees until when, and, on a device signed in a week
 * before the change, can close that early: for when he is losing the old mailbox.
 */
export function EmailChangeUndoNotice(): React.JSX.Element | null {
  const undo = useQuery(emailChangeUndoQuery());
  const close = useCloseEmailChangeUndo();
  const windows = undo.data?.undoWindows ?? [];
  if (windows.length === 0) return null;
  const canClose = windows.some((window) => window.canCloseHere);

  return (
    <section className={styles.undoNotice} aria-labelledby="email-undo-title">
      <h2 className={styles.undoTitle} id="email-undo-title">
        Your previous email can still undo the change
      </h2>
      {windows.map((window) => (
        <p key={window.previousEmail}>
          Until {formatLongDate(window.undoableUntil)}, the link we sent to{' '}
          <strong className={styles.address}>{window.previousEmail}</strong> can give your account
          back to that address, sign out every device and clear your password.
        </p>
      ))}
      {canClose ? (
        <>
          <p>
            If you made this change and no longer have that mailbox, close this now. If you did not
            make it, do not: use the “This was not me” button in the email we sent there.
          </p>
          <div className={styles.actions}>
            <Button
              variant="outlined"
              size={38}
              disabled={close.isPending}
              onClick={() => close.mutate()}
            >
              Close it now
            </Button>
          </div>
        </>
      ) : (
        <p className={styles.value}>
          It can be closed early only from a device that was signed in at least 7 days before the
          change.
        </p>
      )}
    </section>
  );
}
