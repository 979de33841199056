/**
 * A body to read: pre-formatted in a box that scrolls inside itself (a large payload neither
 * stretches the page nor hides what follows), focusable so the keyboard can scroll it. Preact
 * sets it as text: whatever the sender put in it stays text.
 */
import { readablePayload } from '../webhook-text.js';

export function Payload(props: { label: string; body: string; encoding?: 'utf8' | 'base64' }) {
  const { text, note } = readablePayload(props.body, props.encoding);
  return (
    <>
      {note && <p class="muted">{note}</p>}
      {text !== '' && (
        <pre class="payload" tabIndex={0} role="region" aria-label={props.label}>
          {text}
        </pre>
      )}
    </>
  );
}
