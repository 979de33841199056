import assert from 'node:assert/strict';
import { createDemoWorkspace, type DemoEnvironment } from '../../src/demo/create-demo-workspace.js';
import type { Client } from './seed.js';
import type { TestApp } from './test-app.js';

export interface WidgetDemo {
  env: DemoEnvironment;
  /** The seller's operator API (the test secret key). */
  api: Client;
  /** The buyer's browser: the widget session token. */
  widget: Client;
  token: string;
  sessionId: string;
  /** Offering ids by name (Starter, Pro, Agents). */
  offerings: Map<string, string>;
}

/**
 * The widget's tests' starting point: a demo workspace (its customer on Pro), the clock moved to
 * `at` (mid-period), and a widget session minted for the subscription as a seller's backend does.
 */
export async function widgetDemo(t: TestApp, at: number, allowedOrigins: string[]): Promise<WidgetDemo> {
  const d = await createDemoWorkspace(t.deps, { actor: { type: 'OPERATOR', id: 'test' }, source: 'cli', correlationId: 'test' });
  const env = d.environments.test;
  const api = t.seed.client(env.secretKey);
  t.clock.set(at);
  const minted = await api.post('/api/v1/widget_sessions', { subscriptionId: env.subscriptionId, allowedOrigins });
  assert.equal(minted.status, 200, JSON.stringify(minted.body));
  const list = (await api.get('/api/v1/offerings?limit=100')).body.data as Array<{ id: string; name: string }>;
  return {
    env,
    api,
    widget: t.seed.client(minted.body.token),
    token: minted.body.token,
    sessionId: minted.body.id,
    offerings: new Map(list.map((o) => [o.name, o.id])),
  };
}
