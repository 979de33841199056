/**
 * Named schemas for the OpenAPI document. A route's TypeBox schema stays a plain inline schema
 * (validation and serialization never see a $ref); a shared shape carries a PascalCase `title`
 * (`Type.Object({...}, { title: 'Customer' })`),
 * and the rendered document's copies of it become one entry under `components.schemas` and a
 * `$ref` at each place. So a generated client gets one `Customer` type, not a copy per route.
 */

type Json = Record<string, unknown>;

/** A schema name: PascalCase, as `named()` gives it; other titles are left where they are. */
const SCHEMA_NAME = /^[A-Z][A-Za-z0-9]*$/;

/** Keys whose values are data, not schemas: a `title` inside them names nothing. */
const DATA_KEYS = new Set(['example', 'examples', 'default', 'const', 'enum']);

const isObject = (v: unknown): v is Json => typeof v === 'object' && v !== null && !Array.isArray(v);

/** The same JSON whatever the key order: what decides whether two copies are one shape. */
function canonical(v: unknown): string {
  if (Array.isArray(v)) return `[${v.map(canonical).join(',')}]`;
  if (isObject(v)) {
    return `{${Object.keys(v)
      .filter((k) => v[k] !== undefined)
      .sort()
      .map((k) => `${JSON.stringify(k)}:${canonical(v[k])}`)
      .join(',')}}`;
  }
  return JSON.stringify(v);
}

/**
 * A schema's shape: all of it but the description, which may say what it is at one place, and
 * its examples, which @fastify/swagger moves out of a response's top schema into the media type.
 */
const shapeOf = (schema: Json): string => canonical({ ...schema, description: undefined, examples: undefined });

export class SchemaNameClash extends Error {}

/**
 * Moves every titled schema in `paths`, `webhooks` and `components.schemas` to
 * `components.schemas[title]` and refers to it. A description that differs from the named
 * schema's stays beside the $ref (OpenAPI 3.1 allows it). Throws SchemaNameClash when two
 * different shapes claim one name.
 */
export function hoistNamedSchemas<D extends Json>(doc: D): D {
  const components = isObject(doc.components) ? doc.components : {};
  const existing = isObject(components.schemas) ? (components.schemas as Record<string, Json>) : {};
  const named = new Map<string, { schema: Json; shape: string }>();

  const register = (name: string, schema: Json): void => {
    const shape = shapeOf(schema);
    const known = named.get(name);
    if (!known) named.set(name, { schema, shape });
    else if (known.shape === shape) {
      if (known.schema.examples === undefined && schema.examples !== undefined) known.schema.examples = schema.examples;
    } else {
      let at = 0;
      while (known.shape[at] === shape[at]) at++;
      const around = (text: string) => text.slice(Math.max(0, at - 80), at + 80);
      throw new SchemaNameClash(`Two different schemas are named ${name}; they differ at\n  ${around(known.shape)}\n  ${around(shape)}`);
    }
  };

  const walk = (node: unknown): unknown => {
    if (Array.isArray(node)) return node.map(walk);
    if (!isObject(node)) return node;
    const out: Json = {};
    for (const [k, v] of Object.entries(node)) out[k] = DATA_KEYS.has(k) ? v : walk(v);
    const name = out.title;
    if (typeof name !== 'string' || !SCHEMA_NAME.test(name)) return out;
    register(name, out);
    const ref: Json = { $ref: `#/components/schemas/${name}` };
    const first = named.get(name)!.schema;
    if (out.description !== undefined && out.description !== first.description) ref.description = out.description;
    return ref;
  };

  // Schemas already under components (the webhooks' resources) keep their own name, titled or not.
  const schemas: Record<string, Json> = {};
  for (const [name, schema] of Object.entries(existing)) {
    const inner: Json = {};
    for (const [k, v] of Object.entries(schema)) inner[k] = DATA_KEYS.has(k) ? v : walk(v);
    if (inner.title === name) register(name, inner);
    else schemas[name] = inner;
  }
  const paths = walk(doc.paths);
  const webhooks = walk(doc.webhooks);
  dropRepeatedDescriptions(paths);
  const responses = hoistErrorResponses(paths);
  for (const [name, { schema }] of [...named].sort(([a], [b]) => a.localeCompare(b))) schemas[name] = schema;
  return {
    ...doc,
    paths,
    ...(doc.webhooks ? { webhooks } : {}),
    components: { ...components, schemas, ...(Object.keys(responses).length ? { responses } : {}) },
  };
}

const errorNames: Record<string, string> = {
  400: 'BadRequest',
  401: 'Unauthorized',
  403: 'Forbidden',
  404: 'NotFound',
  409: 'Conflict',
  413: 'ContentTooLarge',
  415: 'UnsupportedMediaType',
  422: 'UnprocessableContent',
  429: 'TooManyRequests',
  503: 'ServiceUnavailable',
};

/**
 * The common error answers (http/schemas.ts `errors()`, the same on every route) go once under
 * `components.responses`, named by status; a route's own wording of a status stays inline.
 */
function hoistErrorResponses(paths: unknown): Record<string, Json> {
  const answers: Array<{ responses: Json; status: string; shape: string }> = [];
  const counts = new Map<string, number>();
  for (const ops of Object.values(isObject(paths) ? paths : {})) {
    for (const op of Object.values(isObject(ops) ? ops : {})) {
      const responses = isObject(op) && isObject(op.responses) ? op.responses : {};
      for (const [status, response] of Object.entries(responses)) {
        if (!errorNames[status] || !isObject(response)) continue;
        const shape = `${status} ${canonical(response)}`;
        answers.push({ responses, status, shape });
        counts.set(shape, (counts.get(shape) ?? 0) + 1);
      }
    }
  }
  // Per status, the wording most routes share is the common one.
  const common = new Map<string, string>();
  for (const [shape, n] of counts) {
    const status = shape.slice(0, 3);
    const best = common.get(status);
    if (!best || n > counts.get(best)!) common.set(status, shape);
  }
  const out: Record<string, Json> = {};
  for (const { responses, status, shape } of answers) {
    if (common.get(status) !== shape) continue;
    const name = errorNames[status]!;
    out[name] ??= responses[status] as Json;
    responses[status] = { $ref: `#/components/responses/${name}` };
  }
  return Object.fromEntries(Object.keys(errorNames).flatMap((s) => (out[errorNames[s]!] ? [[errorNames[s]!, out[errorNames[s]!]!]] : [])));
}

/** A response's description is said once: not again beside the $ref of its schema. */
function dropRepeatedDescriptions(paths: unknown): void {
  if (!isObject(paths)) return;
  for (const ops of Object.values(paths)) {
    if (!isObject(ops)) continue;
    for (const op of Object.values(ops)) {
      const responses = isObject(op) && isObject(op.responses) ? op.responses : {};
      for (const response of Object.values(responses)) {
        if (!isObject(response) || !isObject(response.content)) continue;
        for (const media of Object.values(response.content)) {
          const schema = isObject(media) ? media.schema : undefined;
          if (isObject(schema) && schema.$ref && schema.description === response.description) delete schema.description;
        }
      }
    }
  }
}
