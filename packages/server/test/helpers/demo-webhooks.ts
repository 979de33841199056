import { randomUUID } from 'node:crypto';
import { signWebhook } from '../../src/modules/plugs/sign-webhook.js';
import { signatureSchemeOf } from '../../src/modules/plugs/provider-templates.js';
import type { DemoSourceKey, DemoWebhookSource } from '../../src/demo/create-demo-sources.js';

export interface SignedDelivery {
  path: string;
  headers: Record<string, string>;
  body: string;
  /** The quantity the source's default mapping extracts from this body. */
  quantity: number;
  metricName: string;
}

/**
 * A genuine-looking delivery for each demo source, signed the way its provider signs, for the
 * demo customer (tenant_id `tenant`). What a newcomer would send with `tollgate demo --json`.
 */
export function demoDelivery(key: DemoSourceKey, source: DemoWebhookSource, base: string, tenant: string, nowMs: number): SignedDelivery {
  const ts = Math.floor(nowMs / 1000);
  const id = randomUUID();
  const bodies: Record<DemoSourceKey, { body: string; contentType: string; headers?: Record<string, string>; quantity: number }> = {
    payment: {
      body: JSON.stringify({
        id: `evt_${id}`,
        object: 'event',
        type: 'payment_intent.succeeded',
        created: ts,
        data: { object: { id: 'pi_1', amount: 2500, currency: 'usd', customer: tenant } },
      }),
      contentType: 'application/json',
      quantity: 2500,
    },
    messaging: {
      body: new URLSearchParams({ AccountSid: tenant, MessageSid: `SM${id.replaceAll('-', '')}`, MessageStatus: 'delivered', To: '+15005550006' }).toString(),
      contentType: 'application/x-www-form-urlencoded',
      quantity: 1,
    },
    email: {
      body: JSON.stringify([{ email: 'a@example.com', event: 'delivered', sg_event_id: `sg_${id}`, sg_message_id: 'msg_1', timestamp: ts, tenant_id: tenant }]),
      contentType: 'application/json',
      quantity: 1,
    },
    codeHosting: {
      body: JSON.stringify({ ref: 'refs/heads/main', repository: { full_name: `${tenant}/app`, owner: { login: tenant } } }),
      contentType: 'application/json',
      headers: { 'x-github-event': 'push', 'x-github-delivery': id },
      quantity: 1,
    },
    chat: {
      body: JSON.stringify({
        type: 'event_callback',
        team_id: tenant,
        event_id: `Ev${id}`,
        event_time: ts,
        event: { type: 'message', channel: 'C1', text: 'hi' },
      }),
      contentType: 'application/json',
      quantity: 1,
    },
    custom: {
      body: JSON.stringify({ id: `c_${id}`, type: 'inference', quantity: 3, tenant_id: tenant, timestamp: ts }),
      contentType: 'application/json',
      quantity: 3,
    },
  };
  const b = bodies[key];
  const scheme = signatureSchemeOf(source.provider, {});
  const signed = signWebhook(scheme, source.secret, b.body, { nowMs, url: base + source.url, contentType: b.contentType });
  const path = signed.url ? signed.url.slice(base.length) : source.url;
  return {
    path,
    headers: { 'content-type': b.contentType, ...(b.headers ?? {}), ...signed.headers },
    body: b.body,
    quantity: b.quantity,
    metricName: source.metricName,
  };
}
