/** Time comes from here, never from Date.now() in domain code, so tests can freeze it. */
export interface Clock {
  /** Epoch milliseconds. */
  now(): number;
}

export const systemClock: Clock = { now: () => Date.now() };

/** A clock that only moves when told to; tests use it for grace periods and windows. */
export class FrozenClock implements Clock {
  constructor(private t: number = Date.UTC(2026, 0, 15, 12, 0, 0)) {}
  now(): number {
    return this.t;
  }
  set(ms: number): void {
    this.t = ms;
  }
  advance(ms: number): void {
    this.t += ms;
  }
}

export const toIso = (ms: number): string => new Date(ms).toISOString();
export const toIsoOrNull = (ms: number | null | undefined): string | null => (ms === null || ms === undefined ? null : toIso(ms));
