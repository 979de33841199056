import { Type, type Static } from '@sinclair/typebox';
import { toIso } from '../../lib/clock.js';
import { Environment, Timestamp } from '../../http/schemas.js';
import type { Environment as Env } from '../../lib/crypto.js';

/** A billable metric: the unit usage events name in metricName. */
export interface Metric {
  id: string;
  environment: Env;
  name: string;
  displayName: string | null;
  description: string | null;
  unit: string | null;
  createdAt: number;
  updatedAt: number;
}

/** What pricing surfaces show for a metric in place of its name. */
export type MetricLabel = Pick<Metric, 'displayName' | 'unit'>;

// Events must send the name exactly; a narrow alphabet keeps look-alike names (spaces, case
// variants with odd punctuation) from ever being created.
export const METRIC_NAME_PATTERN = '^[A-Za-z0-9][A-Za-z0-9_.:-]{0,99}$';

const Text = (max: number) => Type.String({ minLength: 1, maxLength: max });

export const MetricSchema = Type.Object(
  {
    id: Type.String({ description: 'mtr_…' }),
    object: Type.Literal('metric'),
    environment: Environment,
    name: Type.String({ description: 'Exactly as usage events send it in metricName.' }),
    displayName: Type.Union([Type.String(), Type.Null()]),
    description: Type.Union([Type.String(), Type.Null()]),
    unit: Type.Union([Type.String(), Type.Null()], { description: 'A label such as "request" or "token".' }),
    createdAt: Timestamp,
    updatedAt: Timestamp,
  },
  { title: 'Metric' },
);

export const CreateMetricBody = Type.Object(
  {
    name: Type.String({
      pattern: METRIC_NAME_PATTERN,
      description: 'Letters, digits, _ . : - ; up to 100 characters; unique per workspace and environment.',
    }),
    displayName: Type.Optional(Text(200)),
    description: Type.Optional(Text(2000)),
    unit: Type.Optional(Text(50)),
  },
  { additionalProperties: false },
);
export type CreateMetricInput = Static<typeof CreateMetricBody>;

/** name is fixed: stored usage refers to it. */
export const UpdateMetricBody = Type.Object(
  {
    displayName: Type.Optional(Type.Union([Text(200), Type.Null()])),
    description: Type.Optional(Type.Union([Text(2000), Type.Null()])),
    unit: Type.Optional(Type.Union([Text(50), Type.Null()])),
  },
  { additionalProperties: false, minProperties: 1 },
);
export type UpdateMetricInput = Static<typeof UpdateMetricBody>;

export function presentMetric(m: Metric): Static<typeof MetricSchema> {
  return { ...m, object: 'metric', createdAt: toIso(m.createdAt), updatedAt: toIso(m.updatedAt) };
}
