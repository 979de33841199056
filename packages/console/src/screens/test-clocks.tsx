/**
 * Test clocks (test environment only): create one, attach customers to it elsewhere, and advance
 * it to see renewals, trial ends and invoices happen without waiting. The advance answers once the
 * billing work up to the new time is done.
 */
import { useState } from 'preact/hooks';
import { TextField } from '../components/field-errors.js';
import { ManagedList, NewForm, RowActions, type ListChanges } from '../components/managed-list.js';
import type { Column } from '../components/paged-table.js';
import { ScreenTitle } from '../components/screen-title.js';
import { useConsole } from '../context.js';
import { formatInstant } from '../format.js';
import { formatSeconds, stepAfter, type ClockStep } from '../time.js';
import { formValues, useAction, type Action } from '../use-action.js';

interface TestClock {
  id: string;
  name: string | null;
  frozenTime: string;
  status: 'ready' | 'advancing';
  advanceProgress: { renewals: number; due: number } | null;
  createdAt: string;
}

const clockName = (c: TestClock) => c.name ?? c.id;

function statusText(c: TestClock): string {
  if (c.status === 'ready') return 'Ready';
  return c.advanceProgress ? `Advancing: ${c.advanceProgress.renewals} of ${c.advanceProgress.due} renewals` : 'Advancing';
}

function NewClock(props: { changes: ListChanges; close: () => void }) {
  const { create } = props.changes;
  async function submit(form: HTMLFormElement) {
    const clock = await create.run((api) => api.post<TestClock>('/api/v1/test_clocks', formValues(form)));
    if (clock) props.close();
  }
  return (
    <NewForm action={create} inputs={['name', 'frozenTime']} submit="Create test clock" onSubmit={(f) => void submit(f)}>
      {(errors) => (
        <>
          <TextField name="name" label="Name (optional)" errors={errors} />
          <TextField name="frozenTime" label="Start time (optional)" hint="UTC, e.g. 2026-01-01T00:00:00Z. Empty: now." errors={errors} />
        </>
      )}
    </NewForm>
  );
}

const STEPS: Array<[ClockStep, string]> = [
  ['hour', '1 hour'],
  ['day', '1 day'],
  ['month', '1 month'],
];

/** Moves one clock: by a step, or to a time typed in. */
function AdvanceClock(props: { clock: TestClock; action: Action; onDone: (clock: TestClock) => void; onClose: () => void }) {
  const { clock, action } = props;
  const advance = async (frozenTime: string) => {
    const moved = await action.run((api) => api.post<TestClock>(`/api/v1/test_clocks/${encodeURIComponent(clock.id)}/advance`, { frozenTime }));
    if (moved) props.onDone(moved);
  };
  return (
    <section class="advance-panel" aria-labelledby="advance-title">
      <h3 id="advance-title">Advance “{clockName(clock)}”</h3>
      <p>It is now {formatSeconds(clock.frozenTime)} on this clock.</p>
      <div class="row-actions">
        {STEPS.map(([step, words]) => (
          <button type="button" key={step} disabled={action.busy} onClick={() => void advance(stepAfter(clock.frozenTime, step) ?? clock.frozenTime)}>
            Advance {words}
          </button>
        ))}
      </div>
      <NewForm action={action} inputs={['frozenTime']} submit="Advance to this time" onSubmit={(f) => void advance(formValues(f).frozenTime ?? '')}>
        {(errors) => <TextField name="frozenTime" label="New time" hint="UTC, later than now on the clock, at most 2 years ahead." errors={errors} />}
      </NewForm>
      <p role="status">{action.busy ? 'Advancing: running the billing work up to the new time…' : ''}</p>
      <button type="button" onClick={props.onClose}>
        Close
      </button>
    </section>
  );
}

function Clocks() {
  const [target, setTarget] = useState<TestClock | null>(null);
  const [moved, setMoved] = useState<TestClock | null>(null);
  const advance = useAction();
  const columns: Column<TestClock>[] = [
    { label: 'Name', cell: clockName },
    { label: 'Id', cell: (c) => <code>{c.id}</code> },
    { label: 'Time on the clock', cell: (c) => formatSeconds(c.frozenTime) },
    { label: 'Status', cell: statusText },
    { label: 'Created', cell: (c) => formatInstant(c.createdAt) },
    {
      label: 'Actions',
      cell: (c) => (
        <RowActions
          subject={clockName(c)}
          actions={[
            {
              label: 'Advance',
              onClick: () => {
                advance.reset();
                setMoved(null);
                setTarget(c);
              },
            },
          ]}
        />
      ),
    },
  ];
  return (
    <ManagedList<TestClock>
      id="test-clocks"
      title="Clocks"
      newLabel="New test clock"
      form={(changes, close) => <NewClock changes={changes} close={close} />}
      path="/api/v1/test_clocks"
      caption="Test clocks, newest first"
      columns={() => columns}
      empty="No test clocks yet."
      reloadKey={advance.done}
      panel={
        <>
          <p role="status" class={moved ? 'notice' : undefined}>
            {moved ? `“${clockName(moved)}” is now at ${formatSeconds(moved.frozenTime)} (${statusText(moved).toLowerCase()}).` : ''}
          </p>
          {target && (
            <AdvanceClock key={target.id} clock={moved?.id === target.id ? moved : target} action={advance} onDone={setMoved} onClose={() => setTarget(null)} />
          )}
        </>
      }
    />
  );
}

export function TestClocks() {
  const { environment } = useConsole();
  return (
    <>
      <ScreenTitle>Test clocks</ScreenTitle>
      <p>
        A test clock is a time of its own for the customers attached to it: advance it to see their renewals, trial ends and invoices happen at once, without
        waiting.
      </p>
      {environment === 'live' ? (
        <p class="notice">
          Test clocks exist in test data only: live data always runs on real time, so there is nothing to show here. Switch to Test data (at the top of the
          page) to create and advance test clocks.
        </p>
      ) : (
        <Clocks />
      )}
    </>
  );
}
