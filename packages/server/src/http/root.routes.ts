import { createHash } from 'node:crypto';
import { Type, type Static } from '@sinclair/typebox';
import type { App } from './types.js';
import { publicSecurity } from './schemas.js';

/** Where this server's pages and probes are; GET / lists them, so a first visit does not end at a 404. */
const LINKS = [
  { rel: 'api-reference', href: '/docs', title: 'API reference: every endpoint, with examples' },
  { rel: 'openapi', href: '/openapi.json', title: 'The OpenAPI 3.1 document the reference is made from' },
  { rel: 'console', href: '/console', title: 'Operator console: customers, pricing, keys and invoices (sign in)' },
  { rel: 'hub', href: '/hub', title: "Developer hub: your customers' own page, opened from a hub link your backend mints" },
  { rel: 'health', href: '/health', title: 'Liveness probe: the process is up' },
  { rel: 'ready', href: '/ready', title: 'Readiness probe: the database answers, migrations are applied' },
] as const;

const ServiceIndex = Type.Object({
  name: Type.Literal('Tollgate'),
  description: Type.String({ maxLength: 200 }),
  links: Type.Array(
    Type.Object({
      rel: Type.Union(LINKS.map((l) => Type.Literal(l.rel))),
      href: Type.String({ maxLength: 100, description: 'A path on this server.' }),
      title: Type.String({ maxLength: 200 }),
    }),
    { maxItems: 20 },
  ),
});

const INDEX: Static<typeof ServiceIndex> = {
  name: 'Tollgate',
  description: 'Usage metering and billing. The API is under /api/v1 and /v1; authenticate with Authorization: Bearer <key>.',
  links: LINKS.map((l) => ({ ...l })),
};

const escape = (s: string) => s.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);

const STYLE = 'body{font:16px/1.5 system-ui,sans-serif;max-width:40rem;margin:3rem auto;padding:0 1rem;color:#1a1a1a}code{font-size:.9em}';

const HTML = `<!doctype html>
<html lang="en">
<head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1"><title>Tollgate</title><style>${STYLE}</style></head>
<body><main>
<h1>Tollgate</h1>
<p>${escape(INDEX.description)}</p>
<ul>
${LINKS.map((l) => `<li><a href="${escape(l.href)}"><code>${escape(l.href)}</code></a>: ${escape(l.title)}</li>`).join('\n')}
</ul>
</main></body>
</html>
`;

/** Nothing but the page's own inline style; no script, no form, not in a frame. */
const CSP = `default-src 'none'; style-src 'sha256-${createHash('sha256').update(STYLE).digest('base64')}'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'`;

/** The q-value `accept` gives `type` through its most specific matching range (0 when none matches). */
function quality(accept: string, type: string): number {
  let q = 0;
  let specificity = -1;
  for (const part of accept.toLowerCase().split(',')) {
    const [range = '', ...params] = part.split(';').map((p) => p.trim());
    const s = range === type ? 2 : range === `${type.split('/')[0]}/*` ? 1 : range === '*/*' ? 0 : -1;
    if (s <= specificity) continue;
    specificity = s;
    const given = params.find((p) => p.startsWith('q='));
    q = given === undefined ? 1 : Number(given.slice(2)) || 0;
  }
  return q;
}

/** A browser asks for HTML first; curl (*\/*), scripts and anyone else get JSON. */
export const prefersHtml = (accept: string | undefined) => accept !== undefined && quality(accept, 'text/html') > quality(accept, 'application/json');

export async function rootRoutes(app: App): Promise<void> {
  app.get('/', {
    // Static, like /health, and what load balancers probe by default: never rate limited.
    config: { rateLimited: false },
    schema: {
      operationId: 'retrieveServiceIndex',
      summary: 'Where things are: the API reference, the console and the probes',
      description:
        'Links to this server’s API reference (/docs), OpenAPI document, operator console, developer hub and health probes. JSON, or a small HTML page when Accept prefers text/html (a browser).',
      tags: ['System'],
      security: publicSecurity,
      response: {
        200: {
          description: 'The links, as JSON or as an HTML page.',
          content: {
            'application/json': { schema: Type.Object(ServiceIndex.properties, { examples: [INDEX] }) },
            'text/html': { schema: Type.String({ description: 'The same links as an HTML page.' }) },
          },
        },
      },
    },
    handler: async (request, reply) => {
      reply.header('vary', 'Accept').header('cache-control', 'no-cache');
      if (!prefersHtml(request.headers.accept)) return INDEX;
      return reply
        .headers({
          'content-type': 'text/html; charset=utf-8',
          'content-security-policy': CSP,
          'x-content-type-options': 'nosniff',
          'referrer-policy': 'no-referrer',
        })
        .send(HTML);
    },
  });
}
