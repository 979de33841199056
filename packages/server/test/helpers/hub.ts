import assert from 'node:assert/strict';
import type { InjectOptions } from 'fastify';
import type { App } from '../../src/http/types.js';
import type { Response } from './seed.js';

/** A customer's browser in the developer hub: the hub cookie on every request, X-CSRF-Token on unsafe ones. */
export class HubBrowser {
  constructor(
    private readonly app: App,
    readonly secret: string,
    readonly csrfToken: string | null,
  ) {}

  /** A string body is sent as it is (an upload, with its Content-Type in headers); anything else as JSON. */
  async request(method: NonNullable<InjectOptions['method']>, url: string, body?: unknown, headers: Record<string, string> = {}): Promise<Response> {
    const h: Record<string, string> = { cookie: `__Host-tollgate_hub=${this.secret}`, ...headers };
    if (this.csrfToken !== null && method !== 'GET') h['x-csrf-token'] = this.csrfToken;
    if (body !== undefined) h['content-type'] ??= 'application/json';
    const res = await this.app.inject({
      method,
      url,
      headers: h,
      payload: body === undefined ? undefined : typeof body === 'string' ? body : JSON.stringify(body),
    });
    const json = String(res.headers['content-type'] ?? '').includes('json') && res.body !== '';
    return { status: res.statusCode, headers: res.headers, body: json ? JSON.parse(res.body) : res.body, raw: res };
  }
  get(url: string, headers?: Record<string, string>) {
    return this.request('GET', url, undefined, headers);
  }
  post(url: string, body?: unknown, headers?: Record<string, string>) {
    return this.request('POST', url, body, headers);
  }
  delete(url: string, headers?: Record<string, string>) {
    return this.request('DELETE', url, undefined, headers);
  }
}

export const hubBrowser = (app: App, secret: string, csrfToken: string | null) => new HubBrowser(app, secret, csrfToken);

/** Opens a hub link as the hub page does and returns the browser holding its cookie. */
export async function openedHubSession(app: App, link: string): Promise<HubBrowser> {
  const res = await app.inject({ method: 'POST', url: '/api/v1/hub/session', payload: { token: link } });
  assert.equal(res.statusCode, 200, res.body);
  const secret = /__Host-tollgate_hub=([^;]*)/.exec(String(res.headers['set-cookie']))?.[1];
  assert.ok(secret);
  return new HubBrowser(app, secret, (JSON.parse(res.body) as { csrfToken: string }).csrfToken);
}
