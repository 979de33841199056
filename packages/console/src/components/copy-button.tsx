/**
 * Copy through navigator.clipboard, with a status a screen reader announces ("Copied", or what to
 * do when the browser refuses: the text is in the page to select).
 */
import { useState } from 'preact/hooks';

export function CopyButton(props: { text: string; label?: string; primary?: boolean }) {
  const [copied, setCopied] = useState<'' | 'ok' | 'failed'>('');

  async function copy() {
    try {
      await navigator.clipboard.writeText(props.text);
      setCopied('ok');
    } catch {
      // No clipboard permission (an embedded browser, an old one): the text is there to select.
      setCopied('failed');
    }
  }

  return (
    <div class="secret-actions">
      <button type="button" class={props.primary ? 'primary' : undefined} aria-label={props.label} onClick={() => void copy()}>
        Copy
      </button>
      <span role="status" class="copy-status">
        {copied === 'ok' ? 'Copied' : copied === 'failed' ? 'Could not copy: select the text and copy it.' : ''}
      </span>
    </div>
  );
}
