/**
 * The frame of a page about one thing: its title, the link back to the list it belongs to, and
 * the load's state; the content once the data is there (kept while it reloads, see useKept).
 */
import type { ComponentChildren } from 'preact';
import type { Loaded } from '../use-api.js';
import { Link } from './link.js';
import { ProblemMessage } from './problem-message.js';
import { ScreenTitle } from './screen-title.js';

export function DetailPage<T>(props: {
  title: string;
  back: { href: string; label: string };
  loaded: Loaded<T>;
  data: T | null;
  children: (data: T) => ComponentChildren;
}) {
  const { loaded, data } = props;
  return (
    <>
      <ScreenTitle>{props.title}</ScreenTitle>
      <p>
        <Link href={props.back.href}>{props.back.label}</Link>
      </p>
      {data === null && loaded.state === 'loading' && <p class="muted">Loading…</p>}
      {loaded.state === 'error' && <ProblemMessage problem={loaded.problem} />}
      {data !== null && props.children(data)}
    </>
  );
}
