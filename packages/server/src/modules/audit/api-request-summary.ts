/**
 * Counts API requests per tenant and route in memory, to be written as one audit event per tenant
 * per window: a row per request would outweigh the usage data it serves. Pure, no I/O.
 */

/** One finished, authenticated request. */
export interface RequestSample {
  workspaceId: string;
  environment: string;
  /** Method and route pattern (`GET /api/v1/customers/:id`), never the raw URL with its ids. */
  route: string;
  status: number;
  elapsedMs: number;
}

/** `shed`: 503s, requests turned away on purpose (admission control, a database outage), counted apart from failures. */
export type StatusClass = '2xx' | '4xx' | '5xx' | 'shed';

/** Only the status classes that occurred are present. */
export type RouteStats = Partial<Record<StatusClass, number>> & { p50Ms: number; p99Ms: number };

export interface TenantSummary {
  workspaceId: string;
  environment: string;
  windowStart: number;
  windowEnd: number;
  total: number;
  routes: Record<string, RouteStats>;
}

/** At most this many named routes per tenant and window; requests to further routes count under `OTHER_ROUTE`. */
export const ROUTE_CAP = 200;
export const OTHER_ROUTE = 'other';

/** 1xx and 3xx are counted with 2xx: neither is a failure a reader of the log looks for. */
export function statusClass(status: number): StatusClass {
  if (status === 503) return 'shed';
  if (status >= 500) return '5xx';
  if (status >= 400) return '4xx';
  return '2xx';
}

/**
 * A server error is written at once as its own event, not only counted. A 503 is not one: it is
 * load being shed or a dependency away (logged once a second), and writing an ERROR row for each
 * made shedding cost as much as serving; it is counted as `shed` instead.
 */
export function isServerError(status: number): boolean {
  return status >= 500 && status !== 503;
}

/**
 * Nearest-rank percentile over a histogram of whole milliseconds: the smallest latency that at
 * least `p` percent of the requests did not exceed.
 */
export function percentile(histogram: ReadonlyMap<number, number>, p: number): number {
  let n = 0;
  for (const count of histogram.values()) n += count;
  if (n === 0) return 0;
  const rank = Math.max(1, Math.ceil((p / 100) * n));
  let seen = 0;
  for (const ms of [...histogram.keys()].sort((a, b) => a - b)) {
    seen += histogram.get(ms)!;
    if (seen >= rank) return ms;
  }
  return 0;
}

interface RouteCounts {
  byClass: Map<StatusClass, number>;
  /** Rounded latency -> requests: exact percentiles in memory bounded by distinct latencies, not by traffic. */
  latencies: Map<number, number>;
}

interface TenantCounts {
  workspaceId: string;
  environment: string;
  total: number;
  routes: Map<string, RouteCounts>;
}

export class ApiRequestSummaryAccumulator {
  private tenants = new Map<string, TenantCounts>();

  constructor(
    private windowStart: number,
    private readonly routeCap = ROUTE_CAP,
  ) {}

  add(sample: RequestSample): void {
    const key = `${sample.workspaceId}\u0000${sample.environment}`;
    let tenant = this.tenants.get(key);
    if (!tenant) {
      tenant = { workspaceId: sample.workspaceId, environment: sample.environment, total: 0, routes: new Map() };
      this.tenants.set(key, tenant);
    }
    tenant.total++;
    const routeKey = tenant.routes.has(sample.route) || tenant.routes.size < this.routeCap ? sample.route : OTHER_ROUTE;
    let route = tenant.routes.get(routeKey);
    if (!route) {
      route = { byClass: new Map(), latencies: new Map() };
      tenant.routes.set(routeKey, route);
    }
    const cls = statusClass(sample.status);
    route.byClass.set(cls, (route.byClass.get(cls) ?? 0) + 1);
    const ms = Math.max(0, Math.round(sample.elapsedMs));
    route.latencies.set(ms, (route.latencies.get(ms) ?? 0) + 1);
  }

  /** Ends the window at `now`: a summary per tenant that had traffic, and a fresh, empty window. */
  drain(now: number): TenantSummary[] {
    const summaries: TenantSummary[] = [];
    for (const t of this.tenants.values()) {
      const routes: Record<string, RouteStats> = {};
      for (const [name, r] of t.routes) {
        const classes: Partial<Record<StatusClass, number>> = {};
        for (const cls of ['2xx', '4xx', '5xx', 'shed'] as const) {
          const n = r.byClass.get(cls);
          if (n) classes[cls] = n;
        }
        routes[name] = { ...classes, p50Ms: percentile(r.latencies, 50), p99Ms: percentile(r.latencies, 99) };
      }
      summaries.push({ workspaceId: t.workspaceId, environment: t.environment, windowStart: this.windowStart, windowEnd: now, total: t.total, routes });
    }
    this.tenants = new Map();
    this.windowStart = now;
    return summaries;
  }
}
