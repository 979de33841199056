/**
 * A secret the API returns once (a new key, a client secret, an invitation link): shown with a
 * Copy button and a plain warning that it will not be shown again. The heading takes focus when it
 * appears, so a screen reader reads it out and the keyboard is next to the Copy button.
 */
import type { ComponentChildren } from 'preact';
import { useEffect, useId, useRef, useState } from 'preact/hooks';

export function SecretOnce(props: { title: string; label: string; secret: string; children?: ComponentChildren; onDone: () => void }) {
  const id = useId();
  const heading = useRef<HTMLHeadingElement>(null);
  const [copied, setCopied] = useState<'' | 'ok' | 'failed'>('');
  useEffect(() => heading.current?.focus(), [props.secret]);

  async function copy() {
    try {
      await navigator.clipboard.writeText(props.secret);
      setCopied('ok');
    } catch {
      // No clipboard permission (an embedded browser, an old one): the text is there to select.
      setCopied('failed');
    }
  }

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
      <div class="secret-actions">
        <button type="button" class="primary" onClick={() => void copy()}>
          Copy
        </button>
        <span role="status" class="copy-status">
          {copied === 'ok' ? 'Copied' : copied === 'failed' ? 'Could not copy: select the text and copy it.' : ''}
        </span>
      </div>
      {props.children}
      <button type="button" onClick={props.onDone}>
        Done, hide it
      </button>
    </section>
  );
}
