/**
 * The HTTP request series (tollgate_http_requests_total and tollgate_http_request_duration_seconds)
 * kept as plain numbers and turned into Prometheus families only when scraped.
 *
 * Why not prom-client's Counter and Histogram: every request records into them, and their
 * children hash the label object on every increment and observation (3.3 µs a request, measured
 * alone: more than the rest of the service's hooks together on a bare route). Here a request
 * finds its series by two Map lookups on strings Fastify already holds (the route pattern and
 * the method) and an array index (the status class), then adds to numbers: no allocation.
 */

export type HttpLabel = 'method' | 'route' | 'status_class';

const METHODS = new Set(['GET', 'POST', 'PUT', 'PATCH', 'DELETE', 'HEAD', 'OPTIONS']);
const STATUS_CLASSES = ['1xx', '2xx', '3xx', '4xx', '5xx'] as const;

interface Series {
  labels: Record<HttpLabel, string>;
  count: number;
  sum: number;
  /** Observations per bucket (not cumulative): index i counts values ≤ bounds[i] and > bounds[i-1]. */
  perBucket: number[];
}

/** prom-client's shape of one value of a family (Registry formats these). */
interface FamilyValue {
  labels: Record<string, string | number>;
  value: number;
  metricName?: string;
}

/** The status class's index: 1xx → 0 … 5xx → 4 (anything outside counts in the nearest). */
export function statusClassIndex(status: number): number {
  return Math.min(Math.max(Math.trunc(status / 100), 1), 5) - 1;
}

/** The first bucket whose upper bound holds `value`; bounds.length when none does (+Inf only). */
export function bucketIndex(bounds: readonly number[], value: number): number {
  let i = 0;
  while (i < bounds.length && value > bounds[i]!) i++;
  return i;
}

export class HttpSeries {
  /** route pattern → method → series by status class. */
  private readonly byRoute = new Map<string, Map<string, Array<Series | undefined>>>();
  /** In first-seen order, for a stable exposition. */
  private readonly all: Series[] = [];

  constructor(private readonly bounds: readonly number[]) {}

  /** A request answered: `route` is the pattern (never the URL), null when no route matched. */
  record(method: string, route: string | null, status: number, seconds: number): void {
    const r = route ?? '(unmatched)';
    let byMethod = this.byRoute.get(r);
    if (!byMethod) this.byRoute.set(r, (byMethod = new Map<string, Array<Series | undefined>>()));
    let byClass = byMethod.get(method);
    if (!byClass) byMethod.set(method, (byClass = []));
    const c = statusClassIndex(status);
    let s = byClass[c];
    if (!s) {
      s = {
        labels: { method: METHODS.has(method) ? method : 'OTHER', route: r, status_class: STATUS_CLASSES[c]! },
        count: 0,
        sum: 0,
        perBucket: new Array<number>(this.bounds.length + 1).fill(0),
      };
      byClass[c] = s;
      this.all.push(s);
    }
    s.count += 1;
    s.sum += seconds;
    s.perBucket[bucketIndex(this.bounds, seconds)]! += 1;
  }

  /** The counter family's values, one per series. Methods outside METHODS share one OTHER series. */
  counterValues(): FamilyValue[] {
    return merged(this.all).map((s) => ({ labels: s.labels, value: s.count }));
  }

  /** The histogram family's values: cumulative buckets, +Inf, _sum and _count per series. */
  histogramValues(name: string): FamilyValue[] {
    const out: FamilyValue[] = [];
    for (const s of merged(this.all)) {
      let acc = 0;
      this.bounds.forEach((le, i) => {
        acc += s.perBucket[i]!;
        out.push({ labels: { ...s.labels, le }, value: acc, metricName: `${name}_bucket` });
      });
      out.push({ labels: { ...s.labels, le: '+Inf' }, value: s.count, metricName: `${name}_bucket` });
      out.push({ labels: s.labels, value: s.sum, metricName: `${name}_sum` });
      out.push({ labels: s.labels, value: s.count, metricName: `${name}_count` });
    }
    return out;
  }
}

/** Series with equal labels (several unknown methods, all OTHER) added together. */
function merged(all: Series[]): Series[] {
  const byKey = new Map<string, Series>();
  for (const s of all) {
    const key = `${s.labels.method}\u0000${s.labels.route}\u0000${s.labels.status_class}`;
    const m = byKey.get(key);
    if (!m) byKey.set(key, { ...s, perBucket: [...s.perBucket] });
    else {
      m.count += s.count;
      m.sum += s.sum;
      s.perBucket.forEach((n, i) => (m.perBucket[i]! += n));
    }
  }
  return [...byKey.values()];
}
