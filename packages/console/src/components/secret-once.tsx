/**
 * A secret the API returns once (a new key, a client secret, an invitation link): shown with a
 * Copy button and a plain warning that it will not be shown again. The heading takes focus when it
 * appears, so a screen reader reads it out and the keyboard is next to the Copy button.
 */
import type { ComponentChildren } from 'preact';
import { useEffect, useId, useRef } from 'preact/hooks';
import { CopyButton } from './copy-button.js';

export function SecretOnce(props: { title: string; label: string; secret: string; children?: ComponentChildren; onDone: () => void }) {
  const id = useId();
  const heading = useRef<HTMLHeadingElement>(null);
  useEffect(() => heading.current?.focus(), [props.secret]);

  return (
    <section class="secret-once" aria-labelledby={`${id}-title`}>
      <h3 id={`${id}-title`} tabIndex={-1} ref={heading}>
        {props.title}
      </h3>
      <p class="warning">Copy it now: it will not be shown again. Tollgate keeps only a hash of it.</p>
      <p class="secret-label" id={`${id}-label`}>
        {props.label}
      </p>
      <code class="secret-value" aria-labelledby={`${id}-label`}>
        {props.secret}
      </code>
      <CopyButton text={props.secret} primary />
      {props.children}
      <button type="button" onClick={props.onDone}>
        Done, hide it
      </button>
    </section>
  );
}
