import { useQuery } from '@tanstack/react-query';
import { Link, useParams } from 'react-router';

import { deskPaths } from '../paths';
import { PremiumStatus } from '../../../shared/premium/premium-status';
import type { PurchaseHistory as PurchaseHistoryComponent } from '../../../shared/premium/purchase-history';
import { Card } from '../../../shared/ui/card';
import { deskQueries } from '../api';
import styles from '../components/desk.module.css';
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
  const { id = '' } = useParams();
  const view = useQuery(deskQueries.view(id));
  useErrorToast(view.error);
  const back = <Link to={deskPaths.member.getHref(id)}>Back to his story</Link>;

  if (view.isPending) {
    return (
      <p className={styles.muted} role="status">
        Loading what the member sees…
      </p>
    );
  }
  if (view.isError) {
    return (
      <section className={styles.panel}>
        <h1 className={styles.pageTitle}>View as member</h1>
        <p className={styles.loadError}>{view.error.message}</p>
        {back}
      </section>
    );
  }
  const { profile, purchases } = view.data;
  return (
    <div className={styles.viewAs}>
      <div className={styles.viewAsBanner} role="note">
        <p>
          <strong>Viewing as {profile.email}</strong> — read only
        </p>
        {back}
      </div>
      <Card title="Dashboard" titleLevel={1} aside={profile.email}>
        <PremiumStatus profile={profile} readOnly />
      </Card>
      <Card title="Purchase History" aside={profile.email}>
        <PurchaseHistory
          status={null}
          purchases={purchases}
          noPurchasesText="He doesn't have any purchases yet"
        />
      </Card>
    </div>
  );
}
