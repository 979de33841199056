/**
 * Choices in a form, wired like TextField: a labelled select, and a group of checkboxes (a list of
 * ids such as an offering's rate plans, or a key's scopes) whose errors, and those of its items
 * (`ratePlanIds.2`), show under the group. Each works controlled (value and onValue, selected and
 * onSelected) or left to the form (read with FormData on submit).
 */
import type { FormErrors } from '../errors.js';
import { errorIdOf, FieldErrors } from './field-errors.js';

const idOf = (name: string) => `field-${name.replace(/[^A-Za-z0-9_-]/g, '-')}`;

export interface Choice {
  value: string;
  label: string;
}

export function SelectField(props: {
  name: string;
  label: string;
  errors: FormErrors;
  choices: readonly Choice[];
  value?: string;
  onValue?: (value: string) => void;
  disabled?: boolean;
}) {
  const id = idOf(props.name);
  const invalid = (props.errors.byInput[props.name]?.length ?? 0) > 0;
  return (
    <div class="field">
      <label for={id}>{props.label}</label>
      <select
        id={id}
        name={props.name}
        value={props.value}
        disabled={props.disabled}
        aria-invalid={invalid ? 'true' : undefined}
        aria-describedby={invalid ? errorIdOf(props.name) : undefined}
        onChange={(e) => props.onValue?.(e.currentTarget.value)}
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

/** The messages for a list input and for its items. */
export function groupErrors(errors: FormErrors, name: string): FormErrors {
  const messages = Object.entries(errors.byInput)
    .filter(([k]) => k === name || k.startsWith(`${name}.`))
    .flatMap(([, m]) => m);
  return { byInput: messages.length > 0 ? { [name]: messages } : {}, general: [] };
}

/** `name.0` … `name.<max-1>`: the item fields the API may name for a list of at most `max`. */
export const itemInputs = (name: string, max: number) => [name, ...Array.from({ length: max }, (_, i) => `${name}.${i}`)];

export function CheckboxGroup(props: {
  name: string;
  legend: string;
  errors: FormErrors;
  choices: readonly Choice[];
  /** Controlled: what is ticked, and the change. */
  selected?: readonly string[];
  onSelected?: (ids: string[]) => void;
  /** Left to the form: what is ticked at first. */
  checked?: readonly string[];
  /** Said when there is nothing to choose. */
  empty?: string;
}) {
  const errors = groupErrors(props.errors, props.name);
  const { selected, onSelected } = props;
  const toggle = (value: string, on: boolean) => selected && onSelected?.(on ? [...selected, value] : selected.filter((v) => v !== value));
  return (
    <fieldset class="field checks checkboxes" aria-describedby={errors.byInput[props.name] ? errorIdOf(props.name) : undefined}>
      <legend>{props.legend}</legend>
      {props.choices.length === 0 && props.empty && <p class="hint">{props.empty}</p>}
      {props.choices.map((c) => (
        <label key={c.value} class="check">
          <input
            type="checkbox"
            name={props.name}
            value={c.value}
            checked={selected ? selected.includes(c.value) : undefined}
            defaultChecked={selected ? undefined : props.checked?.includes(c.value)}
            onChange={(e) => toggle(c.value, e.currentTarget.checked)}
          />{' '}
          {c.label}
        </label>
      ))}
      <FieldErrors errors={errors} name={props.name} />
    </fieldset>
  );
}
