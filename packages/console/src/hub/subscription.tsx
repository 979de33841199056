/**
 * The customer's subscriptions, and for a live one the upgrade/cancel widget (@tollgate/widget,
 * `<tollgate-upgrade-cancel>`), as a seller embeds it: the script from this server
 * (/widget/v1/tollgate-widget.js, allowed by the hub's CSP as 'self'), and a widget session minted
 * for that subscription through the hub (POST /api/v1/hub/widget_session), not by a seller's backend.
 */
import { useEffect, useRef, useState } from 'preact/hooks';
import { ApiError, type Api } from '../api.js';
import { ProblemMessage } from '../components/problem-message.js';
import { ScreenTitle } from '../components/screen-title.js';
import { useApiScope } from '../context.js';
import { problemFrom, type ApiProblem } from '../errors.js';
import { formatInstant } from '../format.js';
import type { ListPage } from '../paging.js';
import { useApi } from '../use-api.js';
import { planTitle, type PlanNames } from './model.js';

interface HubSubscription extends PlanNames {
  id: string;
  productId: string;
  status: string;
  billingPeriod: string;
  currentPeriodStart: string;
  currentPeriodEnd: string;
  cancelAtPeriodEnd: boolean;
  cancelledAt: string | null;
}

const WIDGET_SCRIPT = '/widget/v1/tollgate-widget.js';
const LIVE = new Set(['ACTIVE', 'ACTIVE_PENDING_CHANGE', 'TRIALING', 'PAST_DUE']);

let widgetScript: Promise<void> | null = null;

/** The widget's script, added to the page once; a failure is not kept, so the next view tries again. */
function loadWidgetScript(): Promise<void> {
  widgetScript ??= new Promise<void>((resolve, reject) => {
    const s = document.createElement('script');
    s.src = WIDGET_SCRIPT;
    s.onload = () => resolve();
    s.onerror = () => {
      widgetScript = null;
      s.remove();
      reject(new Error('The upgrade and cancel buttons could not be loaded. Reload the page to try again.'));
    };
    document.head.appendChild(s);
  });
  return widgetScript;
}

export function Subscription() {
  const loaded = useApi((api) => api.get<ListPage<HubSubscription>>('/api/v1/hub/subscriptions', { limit: 20 }), []);
  return (
    <>
      <ScreenTitle>Subscription</ScreenTitle>
      {loaded.state === 'loading' && <p class="muted">Loading…</p>}
      {loaded.state === 'error' && <ProblemMessage problem={loaded.problem} />}
      {loaded.state === 'ok' && loaded.data.data.length === 0 && <p>You have no subscription.</p>}
      {loaded.state === 'ok' &&
        loaded.data.data.map((s) => (
          <section class="card hub-section" key={s.id} aria-labelledby={`sub-${s.id}`}>
            <h2 id={`sub-${s.id}`}>{planTitle(s)}</h2>
            <dl class="facts">
              {s.plan && (
                <>
                  <dt>Price</dt>
                  <dd>{s.plan.priceText}</dd>
                </>
              )}
              <dt>Status</dt>
              <dd>{s.cancelAtPeriodEnd ? `${s.status}, ends at the end of this period` : s.status}</dd>
              <dt>Billed</dt>
              <dd>{s.billingPeriod.toLowerCase()}</dd>
              <dt>This period</dt>
              <dd>
                {formatInstant(s.currentPeriodStart)} to {formatInstant(s.currentPeriodEnd)}
              </dd>
              {s.cancelledAt && (
                <>
                  <dt>Cancelled</dt>
                  <dd>{formatInstant(s.cancelledAt)}</dd>
                </>
              )}
            </dl>
            {LIVE.has(s.status) && <Widget subscriptionId={s.id} />}
          </section>
        ))}
    </>
  );
}

async function mountWidget(api: Api, subscriptionId: string, into: HTMLElement): Promise<void> {
  const [{ token }] = await Promise.all([api.post<{ token: string }>('/api/v1/hub/widget_session', { subscriptionId }), loadWidgetScript()]);
  into.replaceChildren(
    ...(['upgrade', 'cancel'] as const).map((mode) => {
      const el = document.createElement('tollgate-upgrade-cancel');
      el.setAttribute('mode', mode);
      el.setAttribute('default-apply-at', mode === 'cancel' ? 'PERIOD_END' : 'IMMEDIATE');
      el.setAttribute('token', token);
      return el;
    }),
  );
}

/** The widget's two tags (change plan, cancel) for one subscription. */
function Widget(props: { subscriptionId: string }) {
  const { api } = useApiScope();
  const box = useRef<HTMLDivElement>(null);
  const [problem, setProblem] = useState<ApiProblem | null>(null);
  useEffect(() => {
    if (!box.current) return;
    mountWidget(api, props.subscriptionId, box.current).catch((err: unknown) =>
      setProblem(
        err instanceof ApiError
          ? err.problem
          : err instanceof Error
            ? { status: 0, errors: [{ code: 'WIDGET_NOT_LOADED', message: err.message }], retryAfterSeconds: null }
            : problemFrom(0, null),
      ),
    );
  }, [api, props.subscriptionId]);
  return (
    <div class="hub-widget">
      {problem && <ProblemMessage problem={problem} />}
      <div ref={box} class="row-actions" />
    </div>
  );
}
