import { useQuery } from '@tanstack/react-query';
import { useEffect } from 'react';

import { formatSessionDate } from '../../../shared/format/dates';
import { Button } from '../../../shared/ui/button';
import { deskQueries } from '../api';
import { useErrorToast } from '../use-error-toast';
import { usePages } from '../use-pages';
import { timelineKindName } from '../labels';
import { useDeskText } from '../text';
import styles from './desk.module.css';

/** Everything the product knows of the member, newest first, a page at a time. */
export function MemberTimeline({ memberId }: { memberId: string }): React.JSX.Element {
  const text = useDeskText();
  const { cursors, onLastPage, hasMore, loadMore } = usePages();
  return (
    <section className={styles.panel} aria-labelledby="timeline-title">
      <h2 className={styles.sectionTitle} id="timeline-title">
        {text('timeline')}
      </h2>
      <ol className={styles.timeline} aria-labelledby="timeline-title">
        {cursors.map((cursor, index) => (
          <TimelinePage
            key={cursor ?? 'first'}
            memberId={memberId}
            cursor={cursor}
            onNextCursor={index === cursors.length - 1 ? onLastPage : undefined}
          />
        ))}
      </ol>
      {hasMore ? (
        <div className={styles.loadMore}>
          <Button variant="outlined" size={38} onClick={loadMore}>
            {text('loadMore')}
          </Button>
        </div>
      ) : null}
    </section>
  );
}

function TimelinePage({
  memberId,
  cursor,
  onNextCursor,
}: {
  memberId: string;
  cursor: string | undefined;
  onNextCursor: ((cursor: string | null) => void) | undefined;
}): React.JSX.Element | null {
  const text = useDeskText();
  const page = useQuery(deskQueries.timeline(memberId, cursor));
  useErrorToast(page.error);
  const nextCursor = page.data?.nextCursor ?? null;
  useEffect(() => onNextCursor?.(nextCursor), [onNextCursor, nextCursor]);

  if (page.isPending) {
    return (
      <li className={styles.muted} role="status">
        {text('loadingTimeline')}
      </li>
    );
  }
  if (page.isError) return <li className={styles.loadError}>{text('timelineFailed')}</li>;
  if (page.data.data.length === 0 && cursor === undefined) {
    return <li className={styles.empty}>{text('nothingYet')}</li>;
  }
  return (
    <>
      {page.data.data.map((item) => (
        <li key={item.id} className={styles.timelineItem}>
          <div className={styles.timelineHead}>
            <span className={styles.label}>{timelineKindName(text, item.kind)}</span>
            <span className={styles.timelineTitle}>{item.title}</span>
          </div>
          {item.detail ? <p className={styles.timelineDetail}>{item.detail}</p> : null}
          <p className={styles.timelineMeta}>
            <time dateTime={item.at}>{formatSessionDate(item.at)}</time>
            {item.actor ? text('byActor', { actor: item.actor }) : null}
          </p>
        </li>
      ))}
    </>
  );
}
