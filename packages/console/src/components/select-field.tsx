/** A labelled <select> with the API's errors under it, wired as TextField wires an input. */
import { errorIdOf, FieldErrors } from './field-errors.js';
import type { FormErrors } from '../errors.js';

export function SelectField(props: {
  name: string;
  label: string;
  hint?: string;
  errors: FormErrors;
  options: ReadonlyArray<readonly [string, string]>;
  defaultValue?: string;
}) {
  const id = `field-${props.name.replace(/[^A-Za-z0-9_-]/g, '-')}`;
  const invalid = (props.errors.byInput[props.name]?.length ?? 0) > 0;
  const describedBy = [props.hint ? `${id}-hint` : null, invalid ? errorIdOf(props.name) : null].filter(Boolean).join(' ') || undefined;
  return (
    <div class="field">
      <label for={id}>{props.label}</label>
      {props.hint && (
        <p class="hint" id={`${id}-hint`}>
          {props.hint}
        </p>
      )}
      {/* The option, not the select, carries the default: Preact sets no defaultValue on a select. */}
      <select id={id} name={props.name} aria-invalid={invalid ? 'true' : undefined} aria-describedby={describedBy}>
        {props.options.map(([value, label]) => (
          <option key={value} value={value} selected={value === props.defaultValue}>
            {label}
          </option>
        ))}
      </select>
      <FieldErrors errors={props.errors} name={props.name} />
    </div>
  );
}
