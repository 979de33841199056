/** A select and a group of checkboxes, labelled and showing the API's errors as TextField does. */
import type { FormErrors } from '../errors.js';
import { errorIdOf, FieldErrors } from './field-errors.js';

export interface Choice {
  value: string;
  label: string;
}

const invalid = (errors: FormErrors, name: string) => (errors.byInput[name]?.length ?? 0) > 0;

export function SelectField(props: { name: string; label: string; choices: Choice[]; errors: FormErrors; value?: string; onChange?: (value: string) => void }) {
  const id = `field-${props.name}`;
  const bad = invalid(props.errors, props.name);
  return (
    <div class="field">
      <label for={id}>{props.label}</label>
      <select
        id={id}
        name={props.name}
        value={props.value}
        aria-invalid={bad ? 'true' : undefined}
        aria-describedby={bad ? errorIdOf(props.name) : undefined}
        onChange={(e) => props.onChange?.(e.currentTarget.value)}
      >
        {props.choices.map((c) => (
          <option key={c.value} value={c.value}>
            {c.label}
          </option>
        ))}
      </select>
      <FieldErrors errors={props.errors} name={props.name} />
    </div>
  );
}

export function CheckboxGroup(props: { name: string; legend: string; choices: Choice[]; errors: FormErrors; checked?: string[] }) {
  const bad = invalid(props.errors, props.name);
  return (
    <fieldset class="field checkboxes" aria-describedby={bad ? errorIdOf(props.name) : undefined}>
      <legend>{props.legend}</legend>
      {props.choices.map((c) => (
        <label key={c.value}>
          <input type="checkbox" name={props.name} value={c.value} defaultChecked={props.checked?.includes(c.value)} /> {c.label}
        </label>
      ))}
      <FieldErrors errors={props.errors} name={props.name} />
    </fieldset>
  );
}
