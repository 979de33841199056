import type { ForwardSummary } from './types.js';

/** The summary line: always printed, also when stderr is not a terminal. */
export function formatSummary(s: ForwardSummary): string {
  const reasons = (m: Record<string, number | undefined>) =>
    Object.entries(m)
      .map(([k, n]) => `${k} ${n}`)
      .join(', ');
  const skipped = Object.values(s.skipped).reduce((a: number, n) => a + (n ?? 0), 0);
  const rejected = Object.values(s.rejected).reduce((a, n) => a + n, 0);
  return (
    `${s.logEvents} log lines: ${s.sent} events sent in ${s.batches} batches (${s.accepted} counted, ${s.duplicates} duplicates), ` +
    `${skipped} skipped${skipped ? ` (${reasons(s.skipped)})` : ''}, ${rejected} refused by the server${rejected ? ` (${reasons(s.rejected)})` : ''}` +
    (s.controlMessages ? `, ${s.controlMessages} control messages ignored` : '')
  );
}
