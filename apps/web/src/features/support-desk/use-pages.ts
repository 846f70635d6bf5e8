import { useCallback, useState } from 'react';

/**
 * "Load more" over a list the server hands out a page at a time: the cursors of the pages shown
 * (the first has none), and the next one once the last page has told it. Each page is a query of
 * its own (a component per page), rather than TanStack's infinite query, whose code no other page
 * of the app loads.
 */
export function usePages() {
  const [cursors, setCursors] = useState<Array<string | undefined>>([undefined]);
  const [nextCursor, setNextCursor] = useState<string | null>(null);
  const loadMore = useCallback(() => {
    if (nextCursor === null) return;
    setCursors((shown) => [...shown, nextCursor]);
    setNextCursor(null);
  }, [nextCursor]);
  return {
    cursors,
    /** For the last page to say what follows it (null: nothing). */
    onLastPage: setNextCursor,
    hasMore: nextCursor !== null,
    loadMore,
  };
}
