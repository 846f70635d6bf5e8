import { useQuery } from '@tanstack/react-query';
import { Link, useParams } from 'react-router';

import { deskPaths } from '../paths';
import { localizeMessage } from '../../../shared/i18n/i18n';
import { PremiumStatus } from '../../../shared/premium/premium-status';
import type { PurchaseHistory as PurchaseHistoryComponent } from '../../../shared/premium/purchase-history';
import { Card } from '../../../shared/ui/card';
import { deskQueries } from '../api';
import styles from '../components/desk.module.css';
import { useDeskText } from '../text';
import { useErrorToast } from '../use-error-toast';

/**
 * `/ops/members/:id/view`: the member's dashboard and Purchase History drawn as he sees them, from
 * what the server says he would see, with the member pages' own pieces and no control that
 * writes: no Extend, no billing portal.
 */
export function ViewAsPage({
  PurchaseHistory,
}: {
  /** The member's own Purchase History, as app/routes/support-desk-routes.tsx hands it on. */
  PurchaseHistory: typeof PurchaseHistoryComponent;
}): React.JSX.Element {
  const text = useDeskText();
  const { id = '' } = useParams();
  const view = useQuery(deskQueries.view(id));
  useErrorToast(view.error);
  const back = <Link to={deskPaths.member.getHref(id)}>{text('backToStory')}</Link>;

  if (view.isPending) {
    return (
      <p className={styles.muted} role="status">
        {text('loadingView')}
      </p>
    );
  }
  if (view.isError) {
    return (
      <section className={styles.panel}>
        <h1 className={styles.pageTitle}>{text('viewAsMember')}</h1>
        <p className={styles.loadError}>{localizeMessage(view.error.message)}</p>
        {back}
      </section>
    );
  }
  const { profile, purchases } = view.data;
  return (
    <div className={styles.viewAs}>
      <div className={styles.viewAsBanner} role="note">
        <p>
          {/* Two texts rather than one with <strong> inside (RichText): Lingui's Trans would join
              the entry, which every page loads. */}
          <strong>{text('viewingAs', { email: profile.email })}</strong> {text('readOnly')}
        </p>
        {back}
      </div>
      <Card title={text('dashboard')} titleLevel={1} aside={profile.email}>
        <PremiumStatus profile={profile} readOnly />
      </Card>
      <Card title={text('purchaseHistory')} aside={profile.email}>
        <PurchaseHistory
          status={null}
          purchases={purchases}
          noPurchasesText={text('noPurchasesYet')}
        />
      </Card>
    </div>
  );
}
