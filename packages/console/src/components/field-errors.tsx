/**
 * Form errors from the API, where they belong: FieldErrors under the input it names (the input
 * points at it with aria-describedby), FormAlert above the form for the rest.
 */
import type { InputHTMLAttributes } from 'preact';
import type { FormErrors } from '../errors.js';

export const errorIdOf = (input: string) => `${input.replace(/[^A-Za-z0-9_-]/g, '-')}-error`;

export function FieldErrors(props: { errors: FormErrors; name: string }) {
  const messages = props.errors.byInput[props.name];
  if (!messages || messages.length === 0) return null;
  return (
    <p class="field-error" id={errorIdOf(props.name)}>
      {messages.join(' ')}
    </p>
  );
}

/** An input with its label, hint and errors, wired for assistive technology. */
export function TextField(props: {
  name: string;
  label: string;
  hint?: string;
  errors: FormErrors;
  type?: 'text' | 'email' | 'password' | 'search' | 'url' | 'date';
  autoComplete?: string;
  required?: boolean;
  defaultValue?: string;
  spellcheck?: boolean;
  /** A controlled input (a form that reacts as the operator types): the value and what to do with a new one. */
  value?: string;
  onValue?: (value: string) => void;
  inputMode?: 'decimal' | 'numeric';
  disabled?: boolean;
}) {
  const { name, label, hint, errors, onValue, ...input } = props;
  const id = `field-${name.replace(/[^A-Za-z0-9_-]/g, '-')}`;
  const invalid = (errors.byInput[name]?.length ?? 0) > 0;
  const describedBy = [hint ? `${id}-hint` : null, invalid ? errorIdOf(name) : null].filter(Boolean).join(' ') || undefined;
  return (
    <div class="field">
      <label for={id}>{label}</label>
      {hint && (
        <p class="hint" id={`${id}-hint`}>
          {hint}
        </p>
      )}
      {/* Preact types an input by its type attribute, a union a prop cannot narrow: these few attributes fit every member. */}
      <input
        {...(input as InputHTMLAttributes<HTMLInputElement>)}
        id={id}
        name={name}
        aria-invalid={invalid ? 'true' : undefined}
        aria-describedby={describedBy}
        onInput={onValue && ((e) => onValue(e.currentTarget.value))}
      />
      <FieldErrors errors={errors} name={name} />
    </div>
  );
}

/** The errors no input of the form names; announced when they appear. */
export function FormAlert(props: { messages: string[] }) {
  return (
    <div role="alert" class={props.messages.length > 0 ? 'form-alert' : 'form-alert empty'}>
      {props.messages.map((m) => (
        <p key={m}>{m}</p>
      ))}
    </div>
  );
}
