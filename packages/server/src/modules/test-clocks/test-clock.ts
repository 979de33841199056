import { Type, type Static } from '@sinclair/typebox';
import { toIso } from '../../lib/clock.js';
import { Timestamp } from '../../http/schemas.js';

/**
 * A test clock (as in Stripe Billing): a time of its own for the customers attached to it, in the
 * test environment only. Renewals, trial ends, grace periods and scheduled changes of their
 * subscriptions run as it moves forward, through the same code as real time.
 */
export interface TestClock {
  id: string;
  name: string | null;
  frozenTime: number;
  /** advancing while the billing work of an advance runs, else ready. */
  status: 'ready' | 'advancing';
  createdAt: number;
  updatedAt: number;
}

/** What an advance is doing, while it runs: its subscriptions renewed out of those due. */
export interface AdvanceProgress {
  renewals: number;
  due: number;
}

export const TestClockSchema = Type.Object(
  {
    id: Type.String({ description: 'clock_…' }),
    object: Type.Literal('test_clock'),
    name: Type.Union([Type.String(), Type.Null()]),
    frozenTime: Type.String({ format: 'date-time', description: 'The time of every customer attached to the clock.' }),
    status: Type.Union([Type.Literal('ready'), Type.Literal('advancing')], {
      description: 'advancing while an advance runs the billing work up to frozenTime (see advanceProgress), then ready.',
    }),
    advanceProgress: Type.Union(
      [
        Type.Object({
          renewals: Type.Integer({ description: 'Periods closed so far.' }),
          due: Type.Integer({ description: 'Subscriptions that were due when it started.' }),
        }),
        Type.Null(),
      ],
      { description: 'While advancing, on the node that runs the advance; null otherwise.' },
    ),
    createdAt: Timestamp,
    updatedAt: Timestamp,
  },
  { title: 'TestClock' },
);

export const CreateTestClockBody = Type.Object(
  {
    frozenTime: Type.Optional(Type.String({ format: 'date-time', maxLength: 40, description: 'Where the clock starts; default now.' })),
    name: Type.Optional(Type.String({ minLength: 1, maxLength: 200 })),
  },
  { additionalProperties: false },
);
export type CreateTestClockInput = Static<typeof CreateTestClockBody>;

export const AdvanceTestClockBody = Type.Object(
  { frozenTime: Type.String({ format: 'date-time', maxLength: 40, description: 'The new time: later than the current one, at most 2 years ahead of it.' }) },
  { additionalProperties: false },
);

export function presentTestClock(c: TestClock, progress: AdvanceProgress | null = null): Static<typeof TestClockSchema> {
  return {
    ...c,
    object: 'test_clock',
    frozenTime: toIso(c.frozenTime),
    advanceProgress: progress,
    createdAt: toIso(c.createdAt),
    updatedAt: toIso(c.updatedAt),
  };
}
