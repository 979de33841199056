import { css } from 'lit';

/**
 * Themable with CSS custom properties (--tollgate-accent, --tollgate-accent-text, --tollgate-bg,
 * --tollgate-fg, --tollgate-muted, --tollgate-border, --tollgate-radius, --tollgate-danger) and
 * ::part (opener, dialog, panel, title, button, primary, option, error, result); the font is the
 * page's. Readable from 320 px; no motion under prefers-reduced-motion.
 */
export const styles = css`
  :host {
    display: block;
    font: inherit;
    color: var(--tollgate-fg, inherit);
    --_accent: var(--tollgate-accent, #1d4ed8);
    --_border: var(--tollgate-border, #c8ccd4);
    --_radius: var(--tollgate-radius, 8px);
    --_muted: var(--tollgate-muted, #4b5563);
  }
  [hidden] {
    display: none !important;
  }
  .backdrop {
    position: fixed;
    inset: 0;
    background: rgb(0 0 0 / 45%);
    display: grid;
    place-items: center;
    padding: 0.5rem;
    z-index: 2147483000;
  }
  .panel {
    box-sizing: border-box;
    background: var(--tollgate-bg, #fff);
    color: var(--tollgate-fg, #111827);
    border: 1px solid var(--_border);
    border-radius: var(--_radius);
    padding: 1rem;
    width: min(32rem, 100%);
    max-height: calc(100vh - 1rem);
    overflow: auto;
  }
  .backdrop .panel {
    animation: in 0.15s ease-out;
  }
  @keyframes in {
    from {
      opacity: 0;
      transform: translateY(0.5rem);
    }
  }
  @media (prefers-reduced-motion: reduce) {
    .backdrop .panel {
      animation: none;
    }
  }
  header {
    display: flex;
    justify-content: space-between;
    align-items: start;
    gap: 0.5rem;
  }
  h2 {
    font-size: 1.15em;
    margin: 0 0 0.25rem;
  }
  .step,
  .muted {
    color: var(--_muted);
    font-size: 0.9em;
    margin: 0 0 0.75rem;
  }
  fieldset {
    border: 0;
    padding: 0;
    margin: 0 0 0.75rem;
  }
  legend {
    font-weight: 600;
    margin-bottom: 0.5rem;
  }
  .option {
    border: 1px solid var(--_border);
    border-radius: var(--_radius);
    margin-bottom: 0.5rem;
  }
  label.option,
  .option > label {
    display: flex;
    gap: 0.5rem;
    align-items: baseline;
    padding: 0.5rem 0.75rem;
    cursor: pointer;
  }
  .option:has(input:checked) {
    border-color: var(--_accent);
    box-shadow: 0 0 0 1px var(--_accent);
  }
  .grow {
    flex: 1;
  }
  /* An offering's units under its name: smaller and muted, indented past the radio. */
  .details {
    padding: 0 0.75rem 0.5rem calc(0.75rem + 1.5em);
    color: var(--_muted);
    font-size: 0.85em;
  }
  .current .details {
    padding: 0;
    margin: -0.5rem 0 0.75rem;
  }
  .per-month {
    margin: 0;
  }
  .units {
    list-style: none;
    margin: 0;
    padding: 0;
  }
  .units li {
    margin-top: 0.125rem;
    overflow-wrap: anywhere;
    font-variant-numeric: tabular-nums;
  }
  .note {
    display: block;
    font-size: 0.95em;
  }
  .badge {
    font-size: 0.8em;
    border: 1px solid currentColor;
    border-radius: 999px;
    padding: 0 0.5em;
    white-space: nowrap;
  }
  dl {
    display: grid;
    grid-template-columns: 1fr auto;
    /* The space between a term and its amount is the amount's padding, so a rule above a line runs across. */
    gap: 0.25rem 0;
    margin: 0 0 0.75rem;
  }
  dd {
    margin: 0;
    padding-left: 1rem;
    text-align: right;
    font-variant-numeric: tabular-nums;
  }
  /* What is charged or credited today: ruled off from the lines that make it up, and bold. */
  dt.total,
  dd.total {
    font-weight: 700;
    border-top: 1px solid var(--_border);
    padding-top: 0.25rem;
  }
  .actions {
    display: flex;
    flex-wrap: wrap;
    gap: 0.5rem;
    justify-content: flex-end;
  }
  button {
    font: inherit;
    border-radius: var(--_radius);
    border: 1px solid var(--_border);
    background: transparent;
    color: inherit;
    padding: 0.5rem 0.9rem;
    cursor: pointer;
  }
  button.primary {
    background: var(--_accent);
    border-color: var(--_accent);
    color: var(--tollgate-accent-text, #fff);
  }
  button:disabled {
    opacity: 0.6;
    cursor: progress;
  }
  button:focus-visible,
  input:focus-visible,
  a:focus-visible {
    outline: 2px solid var(--_accent);
    outline-offset: 2px;
  }
  .close {
    border: 0;
    padding: 0.25rem 0.5rem;
  }
  .error {
    color: var(--tollgate-danger, #b91c1c);
    border: 1px solid currentColor;
    border-radius: var(--_radius);
    padding: 0.5rem 0.75rem;
    margin: 0 0 0.75rem;
  }
  .guard {
    position: absolute;
  }
  .sr {
    position: absolute;
    width: 1px;
    height: 1px;
    overflow: hidden;
    clip: rect(0 0 0 0);
    white-space: nowrap;
  }
`;
