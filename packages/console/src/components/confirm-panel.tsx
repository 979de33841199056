/**
 * A confirmation for a change that cannot be undone (revoke, remove), in the page rather than a
 * browser dialog: it says what will happen, and focus lands on Cancel so Enter does no harm.
 */
import { useEffect, useId, useRef } from 'preact/hooks';

export interface Confirmation {
  question: string;
  confirmLabel: string;
  run: () => Promise<unknown>;
}

export function ConfirmPanel(props: { confirmation: Confirmation; busy: boolean; onCancel: () => void }) {
  const id = useId();
  const cancel = useRef<HTMLButtonElement>(null);
  useEffect(() => cancel.current?.focus(), [props.confirmation]);
  const { question, confirmLabel, run } = props.confirmation;
  return (
    <div class="confirm-panel" role="group" aria-labelledby={id}>
      <p id={id}>{question}</p>
      <button type="button" class="danger" disabled={props.busy} onClick={() => void run()}>
        {confirmLabel}
      </button>
      <button type="button" ref={cancel} onClick={props.onCancel}>
        Cancel
      </button>
    </div>
  );
}
