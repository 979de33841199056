/**
 * Usage per metric and day as small multiples: one bar chart per metric (metrics count different
 * things, so one scale for all would flatten the small ones), over a period the operator picks.
 * For one customer, or for the whole environment when customerId is absent; from another route of
 * the same shape when `path` says so (the developer hub's /api/v1/hub/usage/daily, its own customer's).
 */
import { useId, useState } from 'preact/hooks';
import { daysFrom, periodOf, PERIODS, seriesByKey, type PeriodChoice } from '../chart.js';
import { formatUsage } from '../format.js';
import type { ListPage } from '../paging.js';
import { useApi } from '../use-api.js';
import { BarChart } from './bar-chart.js';
import { ProblemMessage } from './problem-message.js';

interface UsageDay {
  date: string;
  metricName: string;
  sum: string;
  count: number;
}

export function UsageCharts(props: { title: string; customerId?: string; path?: string }) {
  const path = props.path ?? '/api/v1/usage/daily';
  const id = useId();
  const [choice, setChoice] = useState<PeriodChoice>('month');
  // The browser's clock picks "today"; the API counts UTC days, and so does periodOf.
  const { from, to } = periodOf(choice, Date.now());
  const loaded = useApi((api) => api.get<ListPage<UsageDay>>(path, { from, to, customerId: props.customerId }), [path, from, to, props.customerId]);
  const groups =
    loaded.state === 'ok'
      ? seriesByKey(
          loaded.data.data.map((r) => ({ key: r.metricName, day: r.date, value: r.sum })),
          daysFrom(from, to),
        )
      : [];

  return (
    <section class="usage-charts" aria-labelledby={`${id}-h`} aria-busy={loaded.state === 'loading' ? 'true' : 'false'}>
      <h2 id={`${id}-h`}>{props.title}</h2>
      <PeriodPicker value={choice} onChange={setChoice} />
      <p class="muted">
        {from} to {to}, UTC days.
      </p>
      {loaded.state === 'loading' && <p class="muted">Loading…</p>}
      {loaded.state === 'error' && <ProblemMessage problem={loaded.problem} />}
      {loaded.state === 'ok' && groups.length === 0 && <p>No usage in this period.</p>}
      <div class="chart-grid">
        {groups.map((g) => (
          <BarChart key={g.key} title={`${g.key} per day`} series={g.series} format={formatUsage} valueHeading="Quantity" />
        ))}
      </div>
    </section>
  );
}

/** The period of a chart: a native select, labelled, so it works with any input. */
export function PeriodPicker(props: { value: PeriodChoice; onChange: (choice: PeriodChoice) => void }) {
  const id = useId();
  return (
    <div class="field period-picker">
      <label for={`${id}-p`}>Period</label>
      <select id={`${id}-p`} value={props.value} onChange={(e) => props.onChange(e.currentTarget.value as PeriodChoice)}>
        {PERIODS.map((p) => (
          <option key={p.value} value={p.value}>
            {p.label}
          </option>
        ))}
      </select>
    </div>
  );
}
