import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { App } from './types.js';

/**
 * The API reference at /docs: Scalar's page, its bundled script and the OpenAPI document, all from
 * this server. Scalar's Fastify plugin did the same, but at every app's build it loaded its parser
 * (~250 ms of modules) and read its 3.4 MB script into memory, which every start and every test
 * app paid whether or not anyone opened /docs. Here each piece is loaded at its first request.
 */

/**
 * The reference page loads nothing from elsewhere: its script and the document come from this
 * server, and the browser is told so. Its inline start-up script and styles need 'unsafe-inline'.
 */
const DOCS_CSP = [
  "default-src 'self'",
  "script-src 'self' 'unsafe-inline'",
  "style-src 'self' 'unsafe-inline'",
  "img-src 'self' data:",
  "font-src 'self' data:",
  "connect-src 'self'",
  "object-src 'none'",
  "base-uri 'none'",
  "frame-ancestors 'none'",
].join('; ');

const CONFIGURATION = {
  pageTitle: 'Tollgate API reference',
  metaData: { title: 'Tollgate API reference' },
  // Everything from this server: the bundled script, no web fonts, no telemetry. The document's
  // URL is relative, so the page works behind a proxy that mounts the service under a prefix.
  url: './openapi.json',
  withDefaultFonts: false,
  telemetry: false,
  agent: { disabled: true },
  hideClientButton: true,
  _integration: 'fastify' as const,
};

let script: Promise<Buffer> | null = null;
/** Scalar's standalone renderer, shipped inside its Fastify package (dist/js/standalone.js). */
function loadScript(): Promise<Buffer> {
  script ??= readFile(path.join(path.dirname(fileURLToPath(import.meta.resolve('@scalar/fastify-api-reference'))), 'js/standalone.js')).catch(
    (err: unknown) => {
      script = null;
      throw err;
    },
  );
  return script;
}

export async function apiReferenceRoutes(app: App): Promise<void> {
  const hidden = { schema: { hide: true }, logLevel: 'silent' as const };
  const csp = {
    onRequest: async (_request: unknown, reply: { header(name: string, value: string): unknown }) => void reply.header('content-security-policy', DOCS_CSP),
  };

  app.get('/docs/', { ...hidden, ...csp }, async (request, reply) => {
    // The page names its script and document relative to /docs/: /docs (which the router also
    // sends here) is redirected to the address with the slash.
    const pathname = request.url.split('?')[0] ?? '';
    if (!pathname.endsWith('/')) return reply.redirect(`${pathname}/`, 301);
    const { getHtmlDocument } = await import('@scalar/core/libs/html-rendering');
    return reply.header('content-type', 'text/html; charset=utf-8').send(getHtmlDocument({ cdn: 'js/scalar.js', ...CONFIGURATION }));
  });
  app.get('/docs/js/scalar.js', { ...hidden, ...csp }, async (_request, reply) =>
    reply.header('content-type', 'application/javascript; charset=utf-8').send(await loadScript()),
  );
  app.get('/docs/openapi.json', { ...hidden, ...csp }, async (_request, reply) =>
    reply.header('content-disposition', 'filename=tollgate-api-reference.json').header('access-control-allow-origin', '*').send(app.swagger()),
  );
  app.get('/docs/openapi.yaml', { ...hidden, ...csp }, async (_request, reply) => {
    const { toYaml } = await import('@scalar/openapi-parser');
    return reply
      .header('content-type', 'application/yaml')
      .header('content-disposition', 'filename=tollgate-api-reference.yaml')
      .header('access-control-allow-origin', '*')
      .send(toYaml(app.swagger()));
  });
}
