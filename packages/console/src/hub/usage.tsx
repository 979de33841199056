/**
 * What the customer has left this period (the entitlement check per product they subscribe to),
 * what they used per metric and day (the console's shared charts over the hub's own route) and per
 * month (the last six months), and the upload of past usage (upload.tsx).
 */
import { useState } from 'preact/hooks';
import { ProblemMessage } from '../components/problem-message.js';
import { ScreenTitle } from '../components/screen-title.js';
import { UsageCharts } from '../components/usage-charts.js';
import { formatInstant, NONE } from '../format.js';
import type { ListPage } from '../paging.js';
import { useApi } from '../use-api.js';
import { planTitle, quotaFigure, type PlanNames } from './model.js';
import { UploadUsage } from './upload.js';

interface Quota extends PlanNames {
  productId: string;
  allowed: boolean;
  reason: string;
  quotaRemaining: number;
  quotaUnlimited: boolean;
  budgetRemainingAmount: string | null;
  budgetUnlimited: boolean;
  periodEnd: string | null;
  limits: Array<{ metricName: string; label: string; limit: number; enforcement: 'BLOCK' | 'ALERT'; used: number }>;
  /** The metric quotaRemaining is of, by its label. */
  quotaMetric: { name: string; label: string } | null;
}

interface UsageRow {
  id: string;
  metricName: string;
  periodStart: string;
  sum: string;
  count: number;
}

const REASONS: Record<string, string> = {
  OK: 'Available',
  NO_ACTIVE_SUBSCRIPTION: 'No active subscription',
  QUOTA_EXHAUSTED: 'Quota used up',
  BUDGET_EXHAUSTED: 'Budget used up',
};

/** The first day of the month `back` months before `now`'s, as the API's instant. */
export function monthsAgo(now: Date, back: number): string {
  return new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth() - back, 1)).toISOString();
}

export function Usage() {
  // An upload that stored usage redraws what shows usage.
  const [uploads, setUploads] = useState(0);
  return (
    <>
      <ScreenTitle>Usage and quotas</ScreenTitle>
      <Quotas key={`q${uploads}`} />
      <UsageCharts key={`c${uploads}`} title="Usage per day" path="/api/v1/hub/usage/daily" />
      <MonthlyUsage key={`m${uploads}`} />
      <UploadUsage onUploaded={() => setUploads((n) => n + 1)} />
    </>
  );
}

function Quotas() {
  const loaded = useApi((api) => api.get<ListPage<Quota & { id?: string }>>('/api/v1/hub/quotas'), []);
  return (
    <section aria-labelledby="quotas-title">
      <h2 id="quotas-title">Left this period</h2>
      {loaded.state === 'loading' && <p class="muted">Loading…</p>}
      {loaded.state === 'error' && <ProblemMessage problem={loaded.problem} />}
      {loaded.state === 'ok' && loaded.data.data.length === 0 && <p>You have no active subscription, so no quota.</p>}
      <div class="cards">
        {loaded.state === 'ok' &&
          loaded.data.data.map((q) => {
            const { figure, caption } = quotaFigure(q);
            return (
              <div class="card" key={q.productId}>
                <h3>{planTitle(q)}</h3>
                <p class="figure">{figure}</p>
                <p>
                  {caption} · {REASONS[q.reason] ?? q.reason}
                  {q.periodEnd && <> · until {formatInstant(q.periodEnd)}</>}
                </p>
                {!q.budgetUnlimited && <p>Budget left: {q.budgetRemainingAmount ?? NONE}</p>}
                {q.limits.length > 0 && (
                  <ul class="plain">
                    {q.limits.map((l) => (
                      <li key={l.metricName}>
                        {l.label}: {l.used.toLocaleString('en-US')} of {l.limit.toLocaleString('en-US')} used (
                        {l.enforcement === 'BLOCK' ? 'refused beyond' : 'warned beyond'})
                      </li>
                    ))}
                  </ul>
                )}
              </div>
            );
          })}
      </div>
    </section>
  );
}

function MonthlyUsage() {
  const from = monthsAgo(new Date(), 5);
  const to = monthsAgo(new Date(), -1);
  const loaded = useApi((api) => api.get<ListPage<UsageRow>>('/api/v1/hub/usage', { from, to, limit: 1000 }), [from, to]);
  return (
    <section aria-labelledby="usage-title" class="hub-section">
      <h2 id="usage-title">Usage by month</h2>
      {loaded.state === 'error' && <ProblemMessage problem={loaded.problem} />}
      <div class="table-scroll" role="region" aria-label="Usage by month" tabIndex={0}>
        <table aria-busy={loaded.state === 'loading' ? 'true' : 'false'}>
          <caption>Usage per metric and month, the last six months</caption>
          <thead>
            <tr>
              <th scope="col">Month</th>
              <th scope="col">Metric</th>
              <th scope="col">Total</th>
              <th scope="col">Events</th>
            </tr>
          </thead>
          <tbody>
            {loaded.state === 'ok' &&
              loaded.data.data.map((r) => (
                <tr key={r.id}>
                  <td>{r.periodStart.slice(0, 7)}</td>
                  <td>{r.metricName}</td>
                  <td class="amount">{r.sum}</td>
                  <td>{r.count.toLocaleString('en-US')}</td>
                </tr>
              ))}
            {loaded.state === 'ok' && loaded.data.data.length === 0 && (
              <tr>
                <td colSpan={4}>No usage in the last six months.</td>
              </tr>
            )}
          </tbody>
        </table>
      </div>
    </section>
  );
}
