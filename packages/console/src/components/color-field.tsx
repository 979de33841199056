/**
 * A colour as #rrggbb: the browser's colour picker and a text input showing the code, in a
 * fieldset named by the legend. The text is the value (empty: not set, which a picker cannot
 * say); the picker writes it, and shows it while it is a colour. Errors show under both, wired to
 * the text input as TextField wires them.
 */
import type { FormErrors } from '../errors.js';
import { pickerValue } from '../storefront-form.js';
import { errorIdOf, FieldErrors } from './field-errors.js';

export function ColorField(props: {
  name: string;
  legend: string;
  hint: string;
  /** What the picker shows while the text is empty or not a colour: the colour the page uses then. */
  fallback: string;
  value: string;
  onValue: (value: string) => void;
  errors: FormErrors;
}) {
  const id = `field-${props.name.replace(/[^A-Za-z0-9_-]/g, '-')}`;
  const invalid = (props.errors.byInput[props.name]?.length ?? 0) > 0;
  const describedBy = [`${id}-hint`, invalid ? errorIdOf(props.name) : null].filter(Boolean).join(' ');
  return (
    <fieldset class="field color-field">
      <legend>{props.legend}</legend>
      <p class="hint" id={`${id}-hint`}>
        {props.hint}
      </p>
      <div class="color-inputs">
        <label class="color-picker">
          <input type="color" value={pickerValue(props.value, props.fallback)} onInput={(e) => props.onValue(e.currentTarget.value)} /> Pick
        </label>
        <label for={id}>Code</label>
        <input
          id={id}
          name={props.name}
          type="text"
          autoComplete="off"
          spellcheck={false}
          placeholder="#rrggbb"
          value={props.value}
          aria-invalid={invalid ? 'true' : undefined}
          aria-describedby={describedBy}
          onInput={(e) => props.onValue(e.currentTarget.value)}
        />
      </div>
      <FieldErrors errors={props.errors} name={props.name} />
    </fieldset>
  );
}
