/**
 * A table over one of the API's lists, a page at a time with Previous and Next (cursor paging,
 * paging.ts; the buttons in pager.tsx).
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
}) {
  const limit = props.limit ?? 20;
  const [at, setAt] = useState<{ cursor: Cursor; page: number }>({ cursor: null, page: 1 });
  const queryKey = JSON.stringify(props.query ?? {});
  const loaded = useApi((api) => api.list<T>(props.path, at.cursor, limit, props.query), [props.path, at.cursor, limit, queryKey]);
  const state = loaded.state === 'ok' ? pageState(at.cursor, loaded.data) : null;
  const rows = loaded.state === 'ok' ? loaded.data.data : [];
  const go = (cursor: Cursor, delta: number) => cursor && setAt({ cursor, page: at.page + delta });

  return (
    <div class="paged-table">
      {loaded.state === 'error' && <ProblemMessage problem={loaded.problem} />}
      <div class="table-scroll" role="region" aria-label={props.caption} tabIndex={0}>
        <table aria-busy={loaded.state === 'loading' ? 'true' : 'false'}>
          <caption>{props.caption}</caption>
          <thead>
            <tr>
              {props.columns.map((c) => (
                <th scope="col" key={c.label}>
                  {c.label}
                </th>
              ))}
            </tr>
          </thead>
          <tbody>
            {rows.map((row) => (
              <tr key={row.id}>
                {props.columns.map((c) => (
                  <td key={c.label}>{c.cell(row)}</td>
                ))}
              </tr>
            ))}
            {loaded.state === 'ok' && rows.length === 0 && (
              <tr>
                <td colSpan={props.columns.length}>{props.empty}</td>
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
