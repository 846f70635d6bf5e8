import { isRunningPurchase, type PurchaseItem } from '@kegel/contract';
import { type ReactNode, useState } from 'react';

import { formatShortDate } from '../format/dates';
import { Skeleton } from '../ui/skeleton';
import { AppleManagedNote } from './apple-managed-note';
import styles from './purchase-history.module.css';
import { usePremiumText } from './text';

const ACTIVE_TITLE_ID = 'active-subscriptions-title';
const PURCHASES_TITLE_ID = 'purchases-title';

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
  noPurchasesText,
}: {
  status: ReactNode;
  purchases: PurchaseItem[];
  isPending?: boolean;
  loadError?: string | null;
  manageStripe?: ReactNode;
  /** What an empty list says: by default the member's own words (premium texts, noPurchases). */
  noPurchasesText?: string;
}): React.JSX.Element {
  const text = usePremiumText();
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
        <section aria-labelledby={ACTIVE_TITLE_ID}>
          <div className={styles.sectionHeader}>
            <h2 className={styles.sectionTitle} id={ACTIVE_TITLE_ID}>
              {text('activeSubscriptions')}
            </h2>
            {hasApple ? (
              // Stripe's portal cannot manage these: App Store subscriptions live on the iPhone.
              <p className={styles.manageElsewhere}>{text('manageInAppStore')}</p>
            ) : null}
            {hasStripe ? manageStripe : null}
          </div>
          <HistoryTable
            labelledBy={ACTIVE_TITLE_ID}
            columns={[text('columnPackage'), text('columnProvider'), text('columnExpiresOn')]}
            rows={active.map((item) => ({
              key: rowKey(item),
              cells: [
                item.name,
                <span key="provider" className={styles.provider}>
                  {/* Stripe and Apple are names; days the support team granted read in words. */}
                  {item.provider === 'Support' ? text('providerSupport') : item.provider}
                  {item.provider === 'Apple' ? <AppleManagedNote /> : null}
                </span>,
                formatShortDate(item.expiresAt),
              ],
            }))}
          />
        </section>
      ) : null}

      <section aria-labelledby={PURCHASES_TITLE_ID}>
        <div className={styles.sectionHeader}>
          <h2 className={styles.sectionTitle} id={PURCHASES_TITLE_ID}>
            {text('purchases')}
          </h2>
        </div>
        {loadError !== null ? (
          <p className={styles.loadError} role="alert">
            {text('purchasesLoadError', { message: loadError })}
          </p>
        ) : isPending ? (
          <div className={styles.skeletonRows} aria-busy="true">
            <span className="visually-hidden">{text('loadingPurchases')}</span>
            {[0, 1, 2].map((index) => (
              <Skeleton key={index} className={styles.skeletonRow} />
            ))}
          </div>
        ) : purchases.length === 0 ? (
          <p className={styles.empty}>{noPurchasesText ?? text('noPurchases')}</p>
        ) : (
          <HistoryTable
            labelledBy={PURCHASES_TITLE_ID}
            columns={[text('columnPackage'), text('columnPurchasedOn'), text('columnExpiresOn')]}
            rows={purchases.map((item) => ({
              key: rowKey(item),
              cells: [
                item.refundedAt ? (
                  <span key="name" className={styles.packageName}>
                    {item.name}
                    <span className={styles.refundedLabel}>
                      {/* A grant the support team removed, a chargeback, or a refund. */}
                      {item.provider === 'Support'
                        ? text('removed')
                        : item.refundKind === 'chargeback'
                          ? text('chargedBack')
                          : text('refunded')}
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
