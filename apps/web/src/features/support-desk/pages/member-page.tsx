import { useQuery } from '@tanstack/react-query';
import { Link, useParams } from 'react-router';

import { deskPaths } from '../paths';
import { localizeMessage } from '../../../shared/i18n/i18n';
import { ButtonLink } from '../../../shared/ui/button';
import { ViewIcon } from '../../../shared/ui/icons/icon-set';
import { deskQueries } from '../api';
import styles from '../components/desk.module.css';
import { MemberActions } from '../components/member-actions';
import { PremiumCard, ProfileCard } from '../components/member-cards';
import { MemberTimeline } from '../components/member-timeline';
import { PurchasesTable } from '../components/purchases-table';
import { useDeskText } from '../text';
import { useErrorToast } from '../use-error-toast';

/** `/ops/members/:id`: the member's whole story, and what the operator can do for him. */
export function MemberPage(): React.JSX.Element {
  const text = useDeskText();
  const { id = '' } = useParams();
  // The desk's frame read it before it showed this page: from the cache.
  const operator = useQuery(deskQueries.operator());
  const story = useQuery(deskQueries.member(id));
  useErrorToast(story.error);
  // Until it is known, the least: support sees no admin control.
  const role = operator.data?.role ?? 'support';

  if (story.isPending) {
    return (
      <p className={styles.muted} role="status">
        {text('loadingMember')}
      </p>
    );
  }
  if (story.isError) {
    return (
      <section className={styles.panel}>
        <h1 className={styles.pageTitle}>{text('member')}</h1>
        <p className={styles.loadError}>{localizeMessage(story.error.message)}</p>
        <Link to={deskPaths.root.getHref()}>{text('findMember')}</Link>
      </section>
    );
  }
  const { profile } = story.data;
  return (
    <div className={styles.stack}>
      <div className={styles.pageHeader}>
        <div>
          <p className={styles.breadcrumb}>
            <Link to={deskPaths.root.getHref()}>{text('findMember')}</Link>
          </p>
          <h1 className={styles.pageTitle}>{profile.email}</h1>
        </div>
        <ButtonLink to={deskPaths.viewAs.getHref(profile.id)} variant="outlined" size={44}>
          <ViewIcon width={18} height={18} />
          {text('viewAsMember')}
        </ButtonLink>
      </div>
      <div className={styles.memberGrid}>
        <div className={styles.stack}>
          <div className={styles.cardPair}>
            <ProfileCard profile={profile} />
            <PremiumCard story={story.data} />
          </div>
          <section className={styles.panel} aria-labelledby="purchases-title">
            <h2 className={styles.sectionTitle} id="purchases-title">
              {text('purchases')}
            </h2>
            <PurchasesTable memberId={profile.id} purchases={story.data.purchases} role={role} />
          </section>
          <MemberTimeline memberId={profile.id} />
        </div>
        <MemberActions member={profile} role={role} />
      </div>
    </div>
  );
}
