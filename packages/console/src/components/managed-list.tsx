/**
 * A list a screen changes: its heading, a "New …" form behind a button, the secret a change
 * returns once, the confirmation of a change that cannot be undone, and the API's refusal of one,
 * above a PagedTable that loads again after every change. Keys, operators and test clocks use it.
 */
import type { ComponentChildren } from 'preact';
import { useRef, useState } from 'preact/hooks';
import type { Api } from '../api.js';
import { formErrors, type FormErrors } from '../errors.js';
import { useAction, type Action } from '../use-action.js';
import { ConfirmPanel, type Confirmation } from './confirm-panel.js';
import { FormAlert } from './field-errors.js';
import { PagedTable, type Column } from './paged-table.js';
import { ProblemMessage } from './problem-message.js';
import { SecretOnce } from './secret-once.js';

export interface Reveal {
  title: string;
  label: string;
  secret: string;
  /** What else the answer means: the old key's grace, the link's expiry. */
  note?: string;
}

export interface ListChanges {
  /** For the create form: its errors go next to its fields. */
  create: Action;
  /** For row changes (revoke, rotate, …): refused ones show above the list. */
  change: Action;
  show(reveal: Reveal | null): void;
  /** Asks first; on yes runs the call, then shows what `after` makes of its answer. */
  ask<T>(question: string, confirmLabel: string, call: (api: Api) => Promise<T>, after?: (answer: T) => Reveal | null): void;
}

/** `settled`: a panel closed without another to take focus (the list's heading takes it, so focus is not lost to the page's start). */
export function useListChanges(settled: () => void) {
  const create = useAction();
  const change = useAction();
  const [reveal, setReveal] = useState<Reveal | null>(null);
  const [confirmation, setConfirmation] = useState<Confirmation | null>(null);
  const changes: ListChanges = {
    create,
    change,
    show: setReveal,
    ask(question, confirmLabel, call, after) {
      change.reset();
      setConfirmation({
        question,
        confirmLabel,
        run: async () => {
          const answer = await change.run(call);
          setConfirmation(null);
          const reveal = answer !== null && after ? after(answer) : null;
          if (reveal) setReveal(reveal);
          else settled();
        },
      });
    },
  };
  return {
    changes,
    reveal,
    confirmation,
    cancel: () => {
      setConfirmation(null);
      settled();
    },
    clearReveal: () => {
      setReveal(null);
      settled();
    },
  };
}

export function ManagedList<T extends { id: string }>(props: {
  id: string;
  title: string;
  intro?: ComponentChildren;
  newLabel: string;
  /** The create form; `close` hides it after a success. */
  form: (changes: ListChanges, close: () => void) => ComponentChildren;
  path: string;
  caption: string;
  columns: (changes: ListChanges) => Column<T>[];
  empty: string;
  /** Shown above the list: a screen's own panel (a test clock's advance form). */
  panel?: ComponentChildren;
  /** Changes made outside `changes` (that panel's): the list loads again when this changes. */
  reloadKey?: string | number;
  /** On a phone, each row a card (PagedTable's `stacked`): for lists whose rows end in their actions. */
  stacked?: boolean;
}) {
  const heading = useRef<HTMLHeadingElement>(null);
  const { changes, reveal, confirmation, cancel, clearReveal } = useListChanges(() => heading.current?.focus());
  const [open, setOpen] = useState(false);
  const formId = `${props.id}-new`;
  return (
    <section class="managed-list" aria-labelledby={`${props.id}-title`}>
      <h2 id={`${props.id}-title`} tabIndex={-1} ref={heading}>
        {props.title}
      </h2>
      {props.intro}
      <button
        type="button"
        aria-expanded={open}
        aria-controls={formId}
        onClick={() => {
          changes.create.reset();
          setOpen(!open);
        }}
      >
        {props.newLabel}
      </button>
      <div id={formId} class="new-form" hidden={!open}>
        {open && props.form(changes, () => setOpen(false))}
      </div>
      {reveal && (
        <SecretOnce title={reveal.title} label={reveal.label} secret={reveal.secret} onDone={clearReveal}>
          {reveal.note && <p class="grace">{reveal.note}</p>}
        </SecretOnce>
      )}
      {confirmation && <ConfirmPanel confirmation={confirmation} busy={changes.change.busy} onCancel={cancel} />}
      {changes.change.problem && <ProblemMessage problem={changes.change.problem} />}
      {props.panel}
      <PagedTable
        key={`${changes.create.done}-${changes.change.done}-${props.reloadKey ?? ''}`}
        path={props.path}
        caption={props.caption}
        columns={props.columns(changes)}
        empty={props.empty}
        stacked={props.stacked}
      />
    </section>
  );
}

/** A row's change buttons, each named with the row (a screen reader lists "Revoke Deploy key", not "Revoke" ten times). */
export function RowActions(props: { subject: string; actions: Array<{ label: string; onClick: () => void }> }) {
  return (
    <div class="row-actions">
      {props.actions.map((a) => (
        <button type="button" key={a.label} aria-label={`${a.label} ${props.subject}`} onClick={a.onClick}>
          {a.label}
        </button>
      ))}
    </div>
  );
}

/** A create form: the API's errors next to the inputs it names (the rest above), one submit button. */
export function NewForm(props: {
  action: Action;
  inputs: readonly string[];
  submit: string;
  onSubmit: (form: HTMLFormElement) => void;
  children: (errors: FormErrors) => ComponentChildren;
}) {
  const errors = formErrors(props.action.problem, props.inputs);
  return (
    <form
      aria-busy={props.action.busy ? 'true' : 'false'}
      onSubmit={(e) => {
        e.preventDefault();
        props.onSubmit(e.currentTarget);
      }}
    >
      <FormAlert messages={errors.general} />
      {props.children(errors)}
      <button type="submit" class="primary" disabled={props.action.busy}>
        {props.submit}
      </button>
    </form>
  );
}
