import { Type, type Static } from '@sinclair/typebox';
import { toIso } from '../../lib/clock.js';
import { Environment, Timestamp } from '../../http/schemas.js';
import type { Environment as Env } from '../../lib/crypto.js';
import { DOTTED_PATH_PATTERN, MAX_PATH_LENGTH } from '../../lib/dotted-path.js';

/**
 * Where rating finds each of its dimensions in an event's metadata, as dotted paths
 * (lib/dotted-path.ts): the execution status (OUTCOME_BASED weights), the tool and the endpoint
 * (multipliers). Fixed once the metric is created, like its name: ingestion sums each hour's usage
 * per distinct dimension, so a path that changed would split one period's usage two ways.
 */
export interface DimensionPaths {
  executionStatus: string;
  tool: string;
  endpoint: string;
}

/** The top-level keys of the same names: what every metric used before paths could be set. */
export const DEFAULT_DIMENSION_PATHS: Readonly<DimensionPaths> = Object.freeze({ executionStatus: 'executionStatus', tool: 'tool', endpoint: 'endpoint' });

/** A billable metric: the unit usage events name in metricName. */
export interface Metric {
  id: string;
  environment: Env;
  name: string;
  displayName: string | null;
  description: string | null;
  unit: string | null;
  dimensionPaths: DimensionPaths;
  createdAt: number;
  updatedAt: number;
}

/** What pricing surfaces show for a metric in place of its name. */
export type MetricLabel = Pick<Metric, 'displayName' | 'unit'>;

// Events must send the name exactly; a narrow alphabet keeps look-alike names (spaces, case
// variants with odd punctuation) from ever being created.
export const METRIC_NAME_PATTERN = '^[A-Za-z0-9][A-Za-z0-9_.:-]{0,99}$';

const Text = (max: number) => Type.String({ minLength: 1, maxLength: max });
const Path = (what: string, fallback: string) =>
  Type.String({
    pattern: DOTTED_PATH_PATTERN,
    maxLength: MAX_PATH_LENGTH,
    description: `The dotted path of metadata holding ${what} (default ${fallback}): 1 to 5 keys of 1 to 40 characters from A-Z a-z 0-9 _ -, joined by dots, such as call.${fallback}.`,
  });
const DIMENSION_PATHS_DESCRIPTION =
  'Where rating reads each dimension in the metadata of this metric’s events: a dotted path to a string value (anything else counts as absent). Fixed once the metric is created: hourly usage is summed by these values as it arrives.';

export const MetricSchema = Type.Object(
  {
    id: Type.String({ description: 'mtr_…' }),
    object: Type.Literal('metric'),
    environment: Environment,
    name: Type.String({ description: 'Exactly as usage events send it in metricName.' }),
    displayName: Type.Union([Type.String(), Type.Null()]),
    description: Type.Union([Type.String(), Type.Null()]),
    unit: Type.Union([Type.String(), Type.Null()], { description: 'A label such as "request" or "token".' }),
    dimensionPaths: Type.Object({ executionStatus: Type.String(), tool: Type.String(), endpoint: Type.String() }, { description: DIMENSION_PATHS_DESCRIPTION }),
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
    dimensionPaths: Type.Optional(
      Type.Object(
        {
          executionStatus: Type.Optional(Path('the execution status that OUTCOME_BASED weights price by', 'executionStatus')),
          tool: Type.Optional(Path('the tool that tool multipliers price by', 'tool')),
          endpoint: Type.Optional(Path('the endpoint that endpoint multipliers price by', 'endpoint')),
        },
        { additionalProperties: false, description: `${DIMENSION_PATHS_DESCRIPTION} A dimension left out keeps its default.` },
      ),
    ),
  },
  { additionalProperties: false },
);
export type CreateMetricInput = Static<typeof CreateMetricBody>;

/** name and dimensionPaths are fixed: stored usage refers to the one and was summed by the other. */
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
