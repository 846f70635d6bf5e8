import { isRunningPurchase, type PurchaseItem } from '@kegel/contract';
import { type ReactNode, useState } from 'react';

import { formatShortDate } from '../format/dates';
import { Skeleton } from '../ui/skeleton';
import { AppleManagedNote } from './apple-managed-note';
import styles from './purchase-history.module.css';

/**
 * The Purchase History under its premium block (`status`): the subscriptions still running and
 * every purchase, newest first. Drawn from the data alone, so the support desk shows the member's
 * history as he sees it; `manageStripe` is the member's own way to Stripe's portal, which the desk
 * leaves out.
 */
export function PurchaseHistory({
  status,
  purchases,
  isPending = false,
  loadError = null,
  manageStripe = null,
  noPurchasesText = "You don't have any purchases yet",
}: {
  status: ReactNode;
  purchases: PurchaseItem[];
  isPending?: boolean;
  loadError?: string | null;
  manageStripe?: ReactNode;
  noPurchasesText?: string;
}): React.JSX.Element {
  // Read once per mount, like the premium block: rows do not vanish while someone reads them.
  const [now] = useState(() => Date.now());
  // Active: the purchases still running (isRunningPurchase, in the contract).
  const active = purchases.filter((item) => isRunningPurchase(item, now));
  const hasStripe = active.some((item) => item.provider === 'Stripe');
  const hasApple = active.some((item) => item.provider === 'Apple');

  return (
    <div className={styles.sections}>
      {status}
      {active.length > 0 ? (
        <section aria-labelledby="active-subscriptions-title">
          <div className={styles.sectionHeader}>
            <h2 className={styles.sectionTitle} id="active-subscriptions-title">
              Active Subscriptions
            </h2>
            {hasApple ? (
              // Stripe's portal cannot manage these: App Store subscriptions live on the iPhone.
              <p className={styles.manageElsewhere}>
                Manage it in the App Store: Settings → your name → Subscriptions.
              </p>
            ) : null}
            {hasStripe ? manageStripe : null}
          </div>
          <HistoryTable
            labelledBy="active-subscriptions-title"
            columns={['Package', 'Provider', 'Expires on']}
            rows={active.map((item) => ({
              key: rowKey(item),
              cells: [
                item.name,
                <span key="provider" className={styles.provider}>
                  {item.provider}
                  {item.provider === 'Apple' ? <AppleManagedNote /> : null}
                </span>,
                formatShortDate(item.expiresAt),
              ],
            }))}
          />
        </section>
      ) : null}

      <section aria-labelledby="purchases-title">
        <div className={styles.sectionHeader}>
          <h2 className={styles.sectionTitle} id="purchases-title">
            Purchases
          </h2>
        </div>
        {loadError !== null ? (
          <p className={styles.loadError} role="alert">
            Your purchases could not be loaded. {loadError}
          </p>
        ) : isPending ? (
          <div className={styles.skeletonRows} aria-busy="true">
            <span className="visually-hidden">Loading purchases</span>
            {[0, 1, 2].map((index) => (
              <Skeleton key={index} className={styles.skeletonRow} />
            ))}
          </div>
        ) : purchases.length === 0 ? (
          <p className={styles.empty}>{noPurchasesText}</p>
        ) : (
          <HistoryTable
            labelledBy="purchases-title"
            columns={['Package', 'Purchased on', 'Expires on']}
            rows={purchases.map((item) => ({
              key: rowKey(item),
              cells: [
                item.refundedAt ? (
                  <span key="name" className={styles.packageName}>
                    {item.name}
                    <span className={styles.refundedLabel}>
                      {/* A grant the support team removed, a chargeback, or a refund. */}
                      {item.provider === 'Support'
                        ? 'Removed'
                        : item.refundKind === 'chargeback'
                          ? 'Charged back'
                          : 'Refunded'}
                    </span>
                  </span>
                ) : (
                  item.name
                ),
                formatShortDate(item.createdAt),
                formatShortDate(item.expiresAt),
              ],
            }))}
          />
        )}
      </section>
    </div>
  );
}

/** A table of the page, named by its section heading; the first column reads as the row's name. */
function HistoryTable({
  labelledBy,
  columns,
  rows,
}: {
  labelledBy: string;
  columns: string[];
  rows: Array<{ key: string; cells: ReactNode[] }>;
}): React.JSX.Element {
  return (
    <div className={styles.tableWrap}>
      <table className={styles.table} aria-labelledby={labelledBy}>
        <thead>
          <tr>
            {columns.map((column) => (
              <th key={column} scope="col">
                {column}
              </th>
            ))}
          </tr>
        </thead>
        <tbody>
          {rows.map((row) => (
            <tr key={row.key}>
              {row.cells.map((cell, index) => (
                <td key={columns[index]}>{cell}</td>
              ))}
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}

/** The list carries no id; provider, times and name together tell purchases apart. */
function rowKey(item: PurchaseItem): string {
  return `${item.provider}|${item.createdAt}|${item.expiresAt}|${item.name}`;
}
