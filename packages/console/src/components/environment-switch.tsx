import type { Environment } from '../api.js';

/**
 * Test or live, always in the header: two toggle buttons (aria-pressed) in a labelled group. Live
 * turns the header's band red and says so in words, not by colour alone.
 */
export function EnvironmentSwitch(props: { value: Environment; onChange: (env: Environment) => void }) {
  const option = (env: Environment, label: string) => (
    <button type="button" class={`env-option env-${env}`} aria-pressed={props.value === env} onClick={() => props.value !== env && props.onChange(env)}>
      {label}
    </button>
  );
  return (
    <div class="env-switch" role="group" aria-label="Environment">
      {option('test', 'Test data')}
      {option('live', 'Live data')}
    </div>
  );
}
