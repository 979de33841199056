// Prepaid credits (issue 41): the burn-down's ceiling. 1,000 customers with 100 grants each
// (priorities, expiries and effective instants spread over the month, some limited to a
// subscription or a metric) and a month of hourly charges each (720), burned down by the pure
// function of @tollgate/pricing (burn-down.ts) in this process: customers settled per second, and
// the conservation check (every charge paid or uncovered to the minor unit). The service's own
// period close, which stores the draws, is to be measured beside this figure (issue 41).
// Run: npm run bench:credits   (about 20 s; no server, no network)
import { pathToFileURL } from 'node:url';
import { burnDown, type BurnCharge, type BurnGrant } from '../packages/pricing/src/index.js';
import { prng } from './lib.js';

const CUSTOMERS = Number(process.env.BENCH_CUSTOMERS ?? 1000);
const GRANTS = Number(process.env.BENCH_GRANTS ?? 100);
const HOURS = 720;
const HOUR = 3_600_000;
const T0 = Date.UTC(2026, 11, 1);

const cents = (n: number) => `${Math.floor(n / 100)}.${String(n % 100).padStart(2, '0')}`;

export function makeCustomer(index: number): { grants: BurnGrant[]; charges: BurnCharge[] } {
  const r = prng(index + 1);
  const grants: BurnGrant[] = Array.from({ length: GRANTS }, (_, i) => {
    const effectiveAt = T0 + Math.floor(r() * HOURS * 0.8) * HOUR;
    return {
      id: `cgr_${index}_${i}`,
      remaining: cents(100 + Math.floor(r() * 5_000)),
      priority: Math.floor(r() * 4),
      effectiveAt,
      expiresAt: r() < 0.5 ? null : effectiveAt + (1 + Math.floor(r() * HOURS)) * HOUR,
      createdAt: effectiveAt - Math.floor(r() * 10) * HOUR,
      subscriptionId: r() < 0.1 ? 'sub_2' : null,
      metricNames: r() < 0.1 ? ['tokens'] : null,
    };
  });
  const charges: BurnCharge[] = Array.from({ length: HOURS }, (_, h) => ({
    at: T0 + h * HOUR + Math.floor(r() * HOUR),
    amount: cents(Math.floor(r() * 2_000)),
    subscriptionId: r() < 0.8 ? 'sub_1' : 'sub_2',
    metricName: r() < 0.5 ? 'tokens' : 'calls',
  }));
  return { grants, charges };
}

/** Burns every customer down once; returns customers per second and the check's result. */
export function measureBurnDown(customers = CUSTOMERS) {
  const data = Array.from({ length: customers }, (_, i) => makeCustomer(i));
  const t0 = performance.now();
  const results = data.map(({ grants, charges }) => burnDown('USD', grants, charges));
  const seconds = (performance.now() - t0) / 1000;
  // Conservation, in whole cents: what was drawn and what is uncovered is what was charged.
  let problems = 0;
  data.forEach(({ charges }, i) => {
    const charged = charges.reduce((s, c) => s + BigInt(c.amount.replace('.', '')), 0n);
    if (BigInt(results[i]!.drawn.replace('.', '')) + BigInt(results[i]!.overage.replace('.', '')) !== charged) problems++;
  });
  return { customers, grants: GRANTS, charges: HOURS, seconds, perSecond: customers / seconds, problems };
}

async function main() {
  measureBurnDown(50); // warm-up
  const r = measureBurnDown();
  console.log(
    `\nPrepaid credits: the burn-down's ceiling (pure, one thread), ${r.customers.toLocaleString('en-US')} customers × ${r.grants} grants × ${r.charges} hourly charges`,
  );
  console.log('| customers | seconds | customers/s | conservation problems |');
  console.log('|---|---|---|---|');
  console.log(`| ${r.customers.toLocaleString('en-US')} | ${r.seconds.toFixed(2)} | ${Math.round(r.perSecond).toLocaleString('en-US')} | ${r.problems} |`);
  if (r.problems > 0) process.exitCode = 1;
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) await main();
