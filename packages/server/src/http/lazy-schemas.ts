import SerializerSelector from '@fastify/fast-json-stringify-compiler';

/**
 * Route schemas compiled when first used, and once per process.
 *
 * Fastify compiles every route's validators and response serializers when the app becomes ready:
 * with ~250 routes that took 2.8 s of a 4 s start (Ajv code generation, fast-json-stringify), and
 * the same again in every test that builds an app. Here a compiler returns a stand-in that
 * compiles on its first call, and the compiled function is kept per schema object, so a second app
 * in the same process (the tests build many) reuses it. `warmCompiledSchemas` compiles the rest
 * in small slices once the server listens, so a production route's first request rarely pays.
 */

type Compiled<F> = { fn: F | null; make: () => F };
const pending = new Set<Compiled<unknown>>();

/** A function that compiles itself on first use; `errors` mirrors the compiled validator's. */
export function lazyValidator<F extends ((data: unknown) => unknown) & { errors?: unknown }>(make: () => F): F {
  const slot: Compiled<F> = { fn: null, make };
  pending.add(slot);
  const stand = ((data: unknown) => {
    const fn = (slot.fn ??= compileSlot(slot));
    const result = fn(data);
    stand.errors = fn.errors;
    return result;
  }) as F;
  return stand;
}

function lazySerializer(make: () => (data: unknown) => string): (data: unknown) => string {
  const slot: Compiled<(data: unknown) => string> = { fn: null, make };
  pending.add(slot);
  return (data) => (slot.fn ??= compileSlot(slot))(data);
}

function compileSlot<F>(slot: Compiled<F>): F {
  // Out of the queue first: a schema that throws is not tried again by the warm-up.
  pending.delete(slot);
  return (slot.fn ??= slot.make());
}

/** Per schema object: what the compiler made of it. */
export function memoizeBySchema<K extends object, F>(): (schema: K, make: () => F) => F {
  const made = new WeakMap<K, F>();
  return (schema, make) => {
    const hit = made.get(schema);
    if (hit) return hit;
    const fn = make();
    made.set(schema, fn);
    return fn;
  };
}

/**
 * Fastify's own serializer factory (fast-json-stringify), made lazy and memoized per response
 * schema: for `Fastify({ schemaController: { compilersFactory: { buildSerializer } } })`.
 */
const buildDefaultSerializers = SerializerSelector.SerializerSelector();
const serializers = memoizeBySchema<object, (data: unknown) => string>();

export function lazySerializerFactory(): SerializerSelector.SerializerFactory {
  return (externalSchemas, serializerOpts) => {
    const compile = buildDefaultSerializers(externalSchemas, serializerOpts);
    const shared = externalSchemas === undefined || externalSchemas === null || Object.keys(externalSchemas).length === 0;
    return (ctx) => {
      const schema = ctx.schema as object;
      const make = () => compile(ctx);
      // With shared schemas (none today) a schema's code depends on them: no reuse across apps.
      return lazySerializer(shared ? () => serializers(schema, make) : make);
    };
  };
}

/**
 * Compiles what no request has needed yet, a slice per turn of the event loop, so requests keep
 * their turn. A schema that fails to compile is logged and left for its route to report (the
 * suite compiles every schema: compilePendingSchemas). Returns a function that stops it.
 */
export function warmCompiledSchemas(onError: (err: unknown) => void, sliceMs = 10): () => void {
  let stopped = false;
  const step = () => {
    if (stopped) return;
    const until = performance.now() + sliceMs;
    for (const slot of pending) {
      try {
        compileSlot(slot);
      } catch (err) {
        onError(err);
      }
      if (performance.now() > until) break;
    }
    if (pending.size > 0) setTimeout(step, 0).unref();
  };
  setTimeout(step, 0).unref();
  return () => {
    stopped = true;
  };
}

/** Compiles every schema not compiled yet, at once; the errors, if any (a test asserts none). */
export function compilePendingSchemas(): unknown[] {
  const errors: unknown[] = [];
  for (const slot of [...pending]) {
    try {
      compileSlot(slot);
    } catch (err) {
      errors.push(err);
    }
  }
  return errors;
}
