import {
  APPLE_REFUND_URL,
  formatMoney,
  type MemberPurchase,
  type OperatorRole,
  supportDeskMessages,
} from '@kegel/contract';
import { Fragment, useState } from 'react';

import { formatShortDate } from '../../../shared/format/dates';
import { localizeMessage } from '../../../shared/i18n/i18n';
import { Button } from '../../../shared/ui/button';
import styles from './desk.module.css';
import { ReasonForm } from './reason-form';
import { RefundForm } from './refund-form';
import { providerName } from '../labels';
import { useDeskText } from '../text';

const COLUMNS = [
  'columnName',
  'columnProvider',
  'columnAmount',
  'columnRefunded',
  'columnPeriod',
  'columnStatus',
  'columnActions',
] as const;

type OpenAction = { purchaseId: string; kind: 'refund' | 'remove-grant' } | null;

/**
 * Every purchase of the member, newest first, with what the operator may do to each: an admin
 * refunds a Stripe purchase or removes a grant of the support team; App Store purchases are
 * refunded by Apple only, and the row says where the member asks.
 */
export function PurchasesTable({
  memberId,
  purchases,
  role,
}: {
  memberId: string;
  purchases: MemberPurchase[];
  role: OperatorRole;
}): React.JSX.Element {
  const text = useDeskText();
  const [open, setOpen] = useState<OpenAction>(null);
  // Read once per mount: rows do not flip while someone reads them.
  const [now] = useState(() => Date.now());
  const isAdmin = role === 'admin';
  const close = (): void => setOpen(null);

  if (purchases.length === 0) return <p className={styles.empty}>{text('noPurchases')}</p>;
  return (
    <div className={styles.tableWrap}>
      <table className={styles.table} aria-labelledby="purchases-title">
        <thead>
          <tr>
            {COLUMNS.map((column) => (
              <th key={column} scope="col">
                {text(column)}
              </th>
            ))}
          </tr>
        </thead>
        <tbody>
          {purchases.map((purchase) => (
            <Fragment key={purchase.id}>
              <tr>
                <td className={styles.wrapCell}>{purchase.name}</td>
                <td>{providerName(text, purchase.provider)}</td>
                <td>
                  {purchase.provider === 'Support'
                    ? '—'
                    : formatMoney(purchase.amountCents, purchase.currency)}
                </td>
                <td>
                  {purchase.refundedCents > 0
                    ? formatMoney(purchase.refundedCents, purchase.currency)
                    : '—'}
                </td>
                <td>
                  {formatShortDate(purchase.startsAt)} – {formatShortDate(purchase.expiresAt)}
                </td>
                <td className={styles.wrapCell}>
                  <PurchaseStatus purchase={purchase} now={now} />
                </td>
                <td>
                  {isAdmin && purchase.refundable ? (
                    <Button
                      variant="outlined"
                      size={38}
                      onClick={() => setOpen({ purchaseId: purchase.id, kind: 'refund' })}
                    >
                      {text('refund')}
                    </Button>
                  ) : isAdmin && purchase.grantId && !purchase.revokedAt ? (
                    <Button
                      variant="outlined"
                      size={38}
                      onClick={() => setOpen({ purchaseId: purchase.id, kind: 'remove-grant' })}
                    >
                      {text('removeGrant')}
                    </Button>
                  ) : null}
                </td>
              </tr>
              {purchase.provider === 'Apple' ? (
                // Under the row, across the table: the words and Apple's link in one line.
                <tr className={styles.noteRow}>
                  <td colSpan={COLUMNS.length}>
                    <AppStoreRefundNote />
                  </td>
                </tr>
              ) : null}
              {open?.purchaseId === purchase.id ? (
                <tr className={styles.actionRow}>
                  <td colSpan={COLUMNS.length}>
                    {open.kind === 'refund' ? (
                      <RefundForm memberId={memberId} purchase={purchase} onDone={close} />
                    ) : (
                      <ReasonForm
                        memberId={memberId}
                        write={{ kind: 'remove-grant', grantId: purchase.grantId ?? '' }}
                        label={text('removeGrantOf', { name: purchase.name })}
                        submitLabel={text('removeGrant')}
                        question={text('removeGrantQuestion', { name: purchase.name })}
                        confirmLabel={text('confirmRemoveGrant')}
                        onDone={close}
                      />
                    )}
                  </td>
                </tr>
              ) : null}
            </Fragment>
          ))}
        </tbody>
      </table>
    </div>
  );
}

function PurchaseStatus({
  purchase,
  now,
}: {
  purchase: MemberPurchase;
  now: number;
}): React.JSX.Element {
  const text = useDeskText();
  if (purchase.revokedAt) {
    return (
      <span className={styles.statusRevoked}>
        {text(purchase.provider === 'Support' ? 'removedOn' : 'revokedOn', {
          date: formatShortDate(purchase.revokedAt),
        })}
        {purchase.revokedReason ? `: ${purchase.revokedReason}` : ''}
      </span>
    );
  }
  const isRunning = new Date(purchase.expiresAt).getTime() > now;
  return isRunning ? (
    <span className={styles.statusActive}>{text('statusActive')}</span>
  ) : (
    <span className={styles.muted}>{text('statusEnded')}</span>
  );
}

/** The contract's words in the page's language, with Apple's page as a link. */
function AppStoreRefundNote(): React.JSX.Element {
  const [before, after] = localizeMessage(supportDeskMessages.appStoreRefund).split(
    APPLE_REFUND_URL,
  );
  return (
    <span className={styles.note}>
      {before}
      <a href={APPLE_REFUND_URL} target="_blank" rel="noreferrer">
        {APPLE_REFUND_URL}
      </a>
      {after}
    </span>
  );
}
