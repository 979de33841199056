import type { ComponentChildren } from 'preact';

/** A screen's heading; focusable by script (not by Tab), so a screen change can move focus to it. */
export function ScreenTitle(props: { children: ComponentChildren }) {
  return <h1 tabIndex={-1}>{props.children}</h1>;
}
