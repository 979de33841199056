import type { ComponentChildren } from 'preact';
import { isPlainClick, navigate } from '../navigation.js';

/** An <a> that changes screens without a page load; a modified click still opens a new tab. */
export function Link(props: { href: string; children: ComponentChildren; current?: boolean; class?: string }) {
  return (
    <a
      href={props.href}
      class={props.class}
      aria-current={props.current ? 'page' : undefined}
      onClick={(e) => {
        if (!isPlainClick(e)) return;
        e.preventDefault();
        navigate(props.href);
      }}
    >
      {props.children}
    </a>
  );
}
