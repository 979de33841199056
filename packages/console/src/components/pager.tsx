/**
 * Previous and Next over a cursor-paged list (paging.ts). The buttons stay focusable when they
 * cannot be used (aria-disabled), so focus does not fall to the page's start after the last page
 * loads.
 */
import { nextCursor, previousCursor, type Cursor, type PageState } from '../paging.js';

export function Pager(props: { state: PageState | null; loading: boolean; page: number; onGo: (cursor: Cursor, delta: number) => void; onFirst?: () => void }) {
  const { state } = props;
  return (
    <div class="pager">
      <button type="button" aria-disabled={!state?.hasPrevious} onClick={() => state?.hasPrevious && props.onGo(previousCursor(state), -1)}>
        Previous
      </button>
      <span role="status">{props.loading ? 'Loading…' : `Page ${props.page}`}</span>
      <button type="button" aria-disabled={!state?.hasNext} onClick={() => state?.hasNext && props.onGo(nextCursor(state), 1)}>
        Next
      </button>
      {props.onFirst && (
        <button type="button" class="link-button" onClick={props.onFirst}>
          First page
        </button>
      )}
    </div>
  );
}
