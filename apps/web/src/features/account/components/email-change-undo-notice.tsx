import { useQuery } from '@tanstack/react-query';

import { formatLongDate } from '../../../shared/format/dates';
import { RichText } from '../../../shared/i18n/rich-text';
import { Button } from '../../../shared/ui/button';
import { emailChangeUndoQuery, useCloseEmailChangeUndo } from '../api';
import { useAccountText } from '../text';
import styles from './settings.module.css';

/**
 * After an email change, the address it left can take the account back for 72 hours with the
 * link mailed to it (ADR 016). The member sees until when, and, on a device signed in a week
 * before the change, can close that early: for when he is losing the old mailbox.
 */
export function EmailChangeUndoNotice(): React.JSX.Element | null {
  const undo = useQuery(emailChangeUndoQuery());
  const close = useCloseEmailChangeUndo();
  const text = useAccountText();
  const windows = undo.data?.undoWindows ?? [];
  if (windows.length === 0) return null;
  const canClose = windows.some((window) => window.canCloseHere);

  return (
    <section className={styles.undoNotice} aria-labelledby="email-undo-title">
      <h2 className={styles.undoTitle} id="email-undo-title">
        {text('undo.title')}
      </h2>
      {windows.map((window) => (
        <p key={window.previousEmail}>
          <RichText
            texts={text}
            name="undo.until"
            values={{ date: formatLongDate(window.undoableUntil), email: window.previousEmail }}
            components={{ strong: <strong className={styles.address} /> }}
          />
        </p>
      ))}
      {canClose ? (
        <>
          <p>{text('undo.closeHint')}</p>
          <div className={styles.actions}>
            <Button
              variant="outlined"
              size={38}
              disabled={close.isPending}
              onClick={() => close.mutate()}
            >
              {text('undo.closeNow')}
            </Button>
          </div>
        </>
      ) : (
        <p className={styles.value}>{text('undo.onlyOldDevice')}</p>
      )}
    </section>
  );
}
