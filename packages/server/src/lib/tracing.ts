import { SpanKind, SpanStatusCode, type Attributes, type Span, type Tracer } from '@opentelemetry/api';
import { ConfigError } from './config.js';

export type { Span, Tracer };
export { SpanKind };

/**
 * Optional OpenTelemetry traces (docs/production.md, "Metrics and tracing"). Off by default: deps.tracer is null
 * and every traced path costs one null check. With TOLLGATE_TRACING=otlp the composition root
 * loads an SDK here, by a dynamic import, and spans go to OTEL_EXPORTER_OTLP_ENDPOINT. The SDK is
 * not a dependency of the server (it weighs more than the rest of the service's observability):
 * the operator installs it beside the server, and a server told to trace without it refuses to
 * start rather than trace nothing silently.
 */
export const TRACING_PACKAGES = ['@opentelemetry/sdk-trace-node', '@opentelemetry/exporter-trace-otlp-http', '@opentelemetry/resources'] as const;

/** A tracer provider as far as the server uses one. */
interface Provider {
  getTracer(name: string, version?: string): Tracer;
  shutdown(): Promise<void>;
}

/** The parts of the SDK modules that are used (they are loaded by name, so typed here). */
interface NodeSdk {
  NodeTracerProvider: new (opts: { resource: unknown; spanProcessors: unknown[] }) => Provider & { register(): void };
  BatchSpanProcessor: new (exporter: unknown) => unknown;
}
interface OtlpExporterModule {
  OTLPTraceExporter: new () => unknown;
}
interface ResourcesModule {
  resourceFromAttributes(attributes: Attributes): unknown;
}

const load = (name: string): Promise<unknown> => import(name);

/** Starts the OTLP pipeline: batched export, service.name from OTEL_SERVICE_NAME (tollgate by default). */
export async function startOtlpTracing(serviceVersion: string): Promise<{ tracer: Tracer; shutdown: () => Promise<void> }> {
  let sdk: NodeSdk, otlp: OtlpExporterModule, resources: ResourcesModule;
  try {
    [sdk, otlp, resources] = (await Promise.all(TRACING_PACKAGES.map(load))) as [NodeSdk, OtlpExporterModule, ResourcesModule];
  } catch (err) {
    // A ConfigError: the CLI prints its message alone and exits 1.
    throw new ConfigError(`TOLLGATE_TRACING=otlp needs the OpenTelemetry SDK: npm install ${TRACING_PACKAGES.join(' ')} (${(err as Error).message})`, {
      cause: err,
    });
  }
  const provider = new sdk.NodeTracerProvider({
    resource: resources.resourceFromAttributes({ 'service.name': process.env.OTEL_SERVICE_NAME || 'tollgate', 'service.version': serviceVersion }),
    spanProcessors: [new sdk.BatchSpanProcessor(new otlp.OTLPTraceExporter())],
  });
  // Also the global provider and context manager, so spans started in a request's async work nest under it.
  provider.register();
  return { tracer: provider.getTracer('tollgate', serviceVersion), shutdown: () => provider.shutdown() };
}

/**
 * Runs `work` in a span when tracing is on (ends it with the outcome), or just runs it. The span is
 * made active for `work`, so spans started inside (a writer commit within a request) are its children.
 */
export function traced<T>(tracer: Tracer | null, name: string, attributes: Attributes, work: () => Promise<T>): Promise<T> {
  if (!tracer) return work();
  return tracer.startActiveSpan(name, { attributes }, (span) =>
    work().then(
      (value) => {
        span.end();
        return value;
      },
      (err: unknown) => {
        span.setStatus({ code: SpanStatusCode.ERROR, message: err instanceof Error ? err.message : String(err) });
        span.end();
        throw err;
      },
    ),
  );
}

/** Marks a server span failed for a 5xx answer (a 4xx is the client's, not an error of the server). */
export function endServerSpan(span: Span, status: number): void {
  span.setAttribute('http.response.status_code', status);
  if (status >= 500) span.setStatus({ code: SpanStatusCode.ERROR });
  span.end();
}
