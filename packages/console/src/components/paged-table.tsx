/**
 * A table over one of the API's lists, a page at a time with Previous and Next (cursor paging,
 * paging.ts; the buttons in pager.tsx). A `stacked` table reads as cards on a phone (styles.css):
 * each row a card, each cell under its column's name, so nothing of a row (a key's status and
 * actions) sits off to the side. Its elements then carry their roles explicitly, since a change
 * of CSS display can take a table's semantics away in some browsers; each cell's column name is
 * hidden from assistive technology, which has the column header already.
 */
import type { ComponentChildren } from 'preact';
import { useState } from 'preact/hooks';
import type { Query } from '../api.js';
import { pageState, type Cursor } from '../paging.js';
import { useApi } from '../use-api.js';
import { Pager } from './pager.js';
import { ProblemMessage } from './problem-message.js';

export interface Column<T> {
  label: string;
  cell(row: T): ComponentChildren;
}

export function PagedTable<T extends { id: string }>(props: {
  path: string;
  caption: string;
  columns: Column<T>[];
  empty: string;
  limit?: number;
  query?: Query;
  stacked?: boolean;
}) {
  const limit = props.limit ?? 20;
  const [at, setAt] = useState<{ cursor: Cursor; page: number }>({ cursor: null, page: 1 });
  const queryKey = JSON.stringify(props.query ?? {});
  const loaded = useApi((api) => api.list<T>(props.path, at.cursor, limit, props.query), [props.path, at.cursor, limit, queryKey]);
  const state = loaded.state === 'ok' ? pageState(at.cursor, loaded.data) : null;
  const rows = loaded.state === 'ok' ? loaded.data.data : [];
  const go = (cursor: Cursor, delta: number) => cursor && setAt({ cursor, page: at.page + delta });
  const stacked = props.stacked === true;
  const role = <R extends 'table' | 'rowgroup' | 'row' | 'columnheader' | 'cell'>(r: R) => (stacked ? r : undefined);

  return (
    <div class="paged-table">
      {loaded.state === 'error' && <ProblemMessage problem={loaded.problem} />}
      <div class="table-scroll" role="region" aria-label={props.caption} tabIndex={0}>
        <table aria-busy={loaded.state === 'loading' ? 'true' : 'false'} class={stacked ? 'stacked' : undefined} role={role('table')}>
          <caption>{props.caption}</caption>
          <thead role={role('rowgroup')}>
            <tr role={role('row')}>
              {props.columns.map((c) => (
                <th scope="col" key={c.label} role={role('columnheader')}>
                  {c.label}
                </th>
              ))}
            </tr>
          </thead>
          <tbody role={role('rowgroup')}>
            {rows.map((row) => (
              <tr key={row.id} role={role('row')}>
                {props.columns.map((c) =>
                  stacked ? (
                    <td key={c.label} role="cell">
                      <span class="cell-label" aria-hidden="true">
                        {c.label}
                      </span>
                      <div class="cell-value">{c.cell(row)}</div>
                    </td>
                  ) : (
                    <td key={c.label}>{c.cell(row)}</td>
                  ),
                )}
              </tr>
            ))}
            {loaded.state === 'ok' && rows.length === 0 && (
              <tr role={role('row')}>
                <td colSpan={props.columns.length} role={role('cell')}>
                  {props.empty}
                </td>
              </tr>
            )}
          </tbody>
        </table>
      </div>
      <Pager
        state={state}
        loading={loaded.state === 'loading'}
        page={at.page}
        onGo={go}
        onFirst={at.cursor === null ? undefined : () => setAt({ cursor: null, page: 1 })}
      />
    </div>
  );
}
