import { createHash } from 'node:crypto';
import { Type } from '@sinclair/typebox';
import type { FastifyReply } from 'fastify';
import type { Deps } from '../../deps.js';
import type { App } from '../../http/types.js';
import { errors, publicSecurity } from '../../http/schemas.js';
import { etagMatches } from './headless-config.js';
import { renderPricingPage, renderPricingPageNotFound, type RenderedPage } from './pricing-page.js';
import { readStorefrontView } from './read-storefront-view.js';
import { findStorefrontById } from './storefront.repository.js';

const CACHE_CONTROL = 'public, max-age=60';

/**
 * No script, no fetch, nothing but the page's own inline style; images from the page, data: URLs
 * and the seller's logo origin only; other sites may embed it.
 */
export function pricingPageCsp(page: Pick<RenderedPage, 'styleHash' | 'imageOrigin'>): string {
  return `default-src 'none'; style-src ${page.styleHash}; img-src 'self' data:${page.imageOrigin === null ? '' : ` ${page.imageOrigin}`}; base-uri 'none'; form-action 'none'; frame-ancestors *`;
}

function sendPage(reply: FastifyReply, status: number, page: RenderedPage, cacheControl: string): FastifyReply {
  return reply
    .code(status)
    .headers({
      'content-type': 'text/html; charset=utf-8',
      'cache-control': cacheControl,
      'content-security-policy': pricingPageCsp(page),
      'x-content-type-options': 'nosniff',
    })
    .send(page.html);
}

const Html = (description: string) => ({
  description,
  content: { 'text/html': { schema: Type.String({ description: 'An HTML document.' }) } },
});

/**
 * GET /pricing/:storefrontId: the hosted pricing page. Public: the storefront id in the URL decides
 * the tenant, and only what was published is read through it.
 */
export async function pricingPageRoutes(app: App, deps: Deps): Promise<void> {
  app.get('/pricing/:storefrontId', {
    config: { auth: { kind: 'none' } },
    schema: {
      operationId: 'retrievePricingPage',
      summary: 'The hosted pricing page (HTML)',
      description:
        "A server-rendered HTML page of the storefront's published offerings: for each, its price, trial, the seller's call to action (a link that opens in the whole window) and every billable unit's wording and tiers, worded by the same display rules a client widget uses; highlighted offerings carry a \"Most popular\" badge. Offerings of the same name in several billing periods get a period switch, with longer periods compared per month. The storefront's theme (colours, font, logo) applies, with text colours chosen for WCAG AA contrast; the CSP allows images from the logo's https origin too. Public, no key; rate-limited per IP address. Needs no JavaScript and may be embedded in an iframe on any site. Cached publicly for 60 s; send the ETag back in If-None-Match for a 304. An unknown storefront, or one never published, is a 404 HTML page.",
      tags: ['Headless pricing'],
      security: publicSecurity,
      params: Type.Object({ storefrontId: Type.String({ maxLength: 100, description: 'sf_…' }) }),
      headers: Type.Object({
        'if-none-match': Type.Optional(Type.String({ maxLength: 1000, description: 'The ETag of a page you hold.' })),
      }),
      response: {
        200: Html('The pricing page.'),
        304: Type.Null({ description: 'Not modified: the ETag still matches.' }),
        404: Html('No published pricing page at this address (an HTML page).'),
        429: errors()[429] as ReturnType<typeof errors>[number],
      },
    },
    handler: async (req, reply) => {
      const storefront = await findStorefrontById(deps.db, req.params.storefrontId);
      if (!storefront || storefront.publishedOfferingIds === null) {
        return sendPage(reply, 404, renderPricingPageNotFound(), 'no-store');
      }
      const { view, display } = await readStorefrontView(deps, storefront, storefront, 'published');
      const page = renderPricingPage({ storefrontName: storefront.name, view, display });
      const etag = `"${createHash('sha256').update(page.html, 'utf8').digest('base64url').slice(0, 27)}"`;
      reply.header('etag', etag);
      if (etagMatches(req.headers['if-none-match'], etag)) {
        return reply.code(304).headers({ 'cache-control': CACHE_CONTROL }).send();
      }
      return sendPage(reply, 200, page, CACHE_CONTROL);
    },
  });
}
