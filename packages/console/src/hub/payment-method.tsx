/**
 * The card the customer pays with (brand, last four, expiry), and Add or Replace card: the hub asks
 * for a hosted page (POST /api/v1/hub/payment_method_session) and sends the browser there; the
 * payment provider sends it back here with `?card=added|cancelled`. The card is saved when the
 * provider's webhook arrives, so after `added` the page asks again a few times until it shows.
 */
import { useEffect, useState } from 'preact/hooks';
import { ApiError } from '../api.js';
import { ProblemMessage } from '../components/problem-message.js';
import { ScreenTitle } from '../components/screen-title.js';
import { useApiScope } from '../context.js';
import { problemFrom, type ApiProblem } from '../errors.js';
import { useKept } from '../use-action.js';
import { useApi } from '../use-api.js';
import { cardText, returnNoticeOf, type Card } from './model.js';

interface HubPaymentMethod {
  cardPayments: boolean;
  card: Card | null;
}

export function PaymentMethod() {
  const { api, signedOut } = useApiScope();
  const loaded = useApi((a) => a.get<HubPaymentMethod>('/api/v1/hub/payment_method'), []);
  const method = useKept(loaded);
  const [notice] = useState(() => returnNoticeOf(window.location.search));
  const [added] = useState(() => new URLSearchParams(window.location.search).get('card') === 'added');
  const [busy, setBusy] = useState(false);
  const [problem, setProblem] = useState<ApiProblem | null>(null);

  useEffect(() => {
    if (!notice) return;
    // Read once: a reload or a bookmark must not say it again.
    window.history.replaceState(null, '', window.location.pathname);
    if (!added) return;
    let left = 5;
    const timer = window.setInterval(() => (--left < 0 ? window.clearInterval(timer) : loaded.reload()), 2_000);
    return () => window.clearInterval(timer);
  }, [notice]);

  async function addCard() {
    setBusy(true);
    setProblem(null);
    try {
      const { url } = await api.post<{ url: string }>('/api/v1/hub/payment_method_session', {});
      window.location.assign(url);
    } catch (err) {
      if (err instanceof ApiError && err.status === 401) signedOut();
      setProblem(err instanceof ApiError ? err.problem : problemFrom(0, null));
      setBusy(false);
    }
  }

  return (
    <>
      <ScreenTitle>Payment method</ScreenTitle>
      <p role="status" class={notice ? 'notice' : undefined}>
        {notice ?? ''}
      </p>
      {method === null && loaded.state === 'loading' && <p class="muted">Loading…</p>}
      {loaded.state === 'error' && <ProblemMessage problem={loaded.problem} />}
      {method && !method.cardPayments && <p>Card payments are not set up here: ask the seller how to pay.</p>}
      {method?.cardPayments && (
        <section class="card hub-section" aria-labelledby="card-title">
          <h2 id="card-title">Your card</h2>
          <p>{method.card ? cardText(method.card) : 'You have no card on file yet.'}</p>
          <p class="muted">Your card details are kept by the payment provider, on its own page; this page never sees them.</p>
          <button type="button" disabled={busy} onClick={() => void addCard()}>
            {method.card ? 'Replace card' : 'Add card'}
          </button>
          {problem && <ProblemMessage problem={problem} />}
        </section>
      )}
    </>
  );
}
