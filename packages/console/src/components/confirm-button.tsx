/**
 * A destructive button that asks once more in the page (no window.confirm: it cannot be styled or
 * tested, and a screen reader announces this one in place).
 */
import { useState } from 'preact/hooks';

export function ConfirmButton(props: { label: string; question: string; confirm: string; busy: boolean; onConfirm: () => void }) {
  const [asking, setAsking] = useState(false);
  if (!asking)
    return (
      <button type="button" class="danger" onClick={() => setAsking(true)}>
        {props.label}
      </button>
    );
  return (
    <div class="confirm" role="group" aria-label={props.label}>
      <p>{props.question}</p>
      <button type="button" class="danger" disabled={props.busy} onClick={props.onConfirm}>
        {props.confirm}
      </button>{' '}
      <button type="button" onClick={() => setAsking(false)}>
        Cancel
      </button>
    </div>
  );
}
