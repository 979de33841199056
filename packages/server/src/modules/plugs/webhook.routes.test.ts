// The webhook receiver, POST /v1/ingest/webhook/{sourceId}, through the real app: raw payloads
// signed with the providers' OFFICIAL npm packages where one exists (stripe, @octokit/webhooks-
// methods, twilio; @sendgrid/eventwebhook checks our P-256 signatures), node:crypto otherwise
// (Slack publishes its algorithm but no signer; custom is ours). Groups follow what a user relies
// on: accepted, duplicate, refused with 401, 422, 400, 404, and the operator's view of each
// request in the ingestion log and the audit trail.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { createHmac, generateKeyPairSync, randomBytes, randomUUID, sign as ecdsaSign, type KeyObject } from 'node:crypto';
import { Writable } from 'node:stream';
import { pino } from 'pino';
import Stripe from 'stripe';
import { sign as octokitSign } from '@octokit/webhooks-methods';
import twilio from 'twilio';
import { EventWebhook } from '@sendgrid/eventwebhook';
import { createTestApp, type TestApp } from '../../../test/helpers/test-app.js';
import type { Client, TenantHandle } from '../../../test/helpers/seed.js';
import type { Provider } from './provider-templates.js';

const PUBLIC_URL = 'https://hooks.example.com';
const HOUR = 3_600_000;
const DAY = 24 * HOUR;
/** Verified webhooks and operator calls share the workspace's per-minute budget; the clock is frozen. */
const NO_RATE_LIMIT = { rateLimitPerMinute: 1_000_000 };

// ---------------------------------------------------------------------------------------------
// Helpers usable with any test app

interface Sent {
  status: number;
  body: any;
  /** X-Webhook-Log-Id: the ingestion log entry of this request. */
  logId: string;
}

interface Outgoing {
  body: string | Buffer;
  headers: Record<string, string>;
  /** Appended to the path, e.g. "?bodySHA256=…". */
  query?: string;
}

async function post(t: TestApp, sourceId: string, req: Outgoing): Promise<Sent> {
  const res = await t.app.inject({ method: 'POST', url: `/v1/ingest/webhook/${sourceId}${req.query ?? ''}`, payload: req.body, headers: req.headers });
  return { status: res.statusCode, body: res.body === '' ? null : JSON.parse(res.body), logId: String(res.headers['x-webhook-log-id'] ?? '') };
}

async function ok<T = any>(p: Promise<{ status: number; body: any }>): Promise<T> {
  const res = await p;
  assert.equal(res.status, 200, JSON.stringify(res.body));
  return res.body;
}

async function createMetric(api: Client, name: string): Promise<string> {
  return (await ok(api.post('/api/v1/metrics', { name }))).id;
}

async function createSource(api: Client, body: Record<string, unknown>): Promise<any> {
  return ok(api.post('/api/v1/webhook-sources', body));
}

/** The usage_events rows of one workspace, optionally of one provider event id, oldest first. */
async function usageRows(t: TestApp, workspaceId: string, eventId?: string) {
  let q = t.deps.db.selectFrom('usageEvents').selectAll().where('workspaceId', '=', workspaceId);
  if (eventId !== undefined) q = q.where('eventId', '=', eventId);
  const rows = await q.orderBy('seq').execute();
  return rows.map((r) => ({
    environment: r.environment,
    customerId: r.customerId,
    metricName: r.metricName,
    quantity: r.quantity,
    occurredAt: Number(r.occurredAt),
    receivedAt: Number(r.receivedAt),
    eventId: r.eventId,
    metadata: r.metadata === null ? null : JSON.parse(r.metadata),
    source: r.source,
  }));
}

async function auditRows(t: TestApp, eventType: string, targetId: string) {
  const rows = await t.deps.db.selectFrom('auditEvents').selectAll().where('eventType', '=', eventType).where('targetId', '=', targetId).execute();
  return rows.map((r) => ({ ...r, payload: JSON.parse(r.payload) as Record<string, unknown> }));
}

/** The audit event webhook.rejected written for one log entry. */
async function rejectionAudit(t: TestApp, sourceId: string, logId: string) {
  const rows = (await auditRows(t, 'webhook.rejected', sourceId)).filter((r) => r.payload.logEntryId === logId);
  assert.equal(rows.length, 1, `expected one webhook.rejected audit event for ${logId}`);
  return rows[0]!;
}

function assertEnvelope(res: Sent, status: number, code: string, field?: string): { code: string; message: string; field?: string } {
  assert.equal(res.status, status, JSON.stringify(res.body));
  assert.equal(res.body.success, false);
  assert.ok(Array.isArray(res.body.errors) && res.body.errors.length > 0, JSON.stringify(res.body));
  const e = res.body.errors[0];
  assert.equal(e.code, code, JSON.stringify(res.body));
  assert.equal(typeof e.message, 'string');
  assert.ok(e.message.length > 0);
  if (field !== undefined) assert.equal(e.field, field, JSON.stringify(res.body));
  return e;
}

const seconds = (ms: number) => Math.floor(ms / 1000);
const hmacHex = (algorithm: 'sha256' | 'sha1', secret: string, data: string | Buffer) => createHmac(algorithm, secret).update(data).digest('hex');

/** Signed the way our custom template's default expects: hex HMAC-SHA256 of the body in X-Signature-256. */
function customSigned(secret: string, body: string | Buffer, extra: Record<string, string> = {}): Outgoing {
  return { body, headers: { 'content-type': 'application/json', 'x-signature-256': hmacHex('sha256', secret, body), ...extra } };
}

// ---------------------------------------------------------------------------------------------
// The main app: PUBLIC_URL set, as it is behind the proxy that Twilio's signatures depend on.

let t: TestApp;
let ws: TenantHandle;
let api: Client;
let counter = 0;
const next = () => ++counter;
const now = () => t.clock.now();

before(async () => {
  t = await createTestApp({ config: { publicUrl: PUBLIC_URL, ...NO_RATE_LIMIT } });
  ws = await t.seed.workspace();
  api = t.seed.client(ws.test.secretKey);
});
after(() => t.close());

const logEntry = async (id: string, client: Client = api) => ok(client.get(`/api/v1/webhook-log/${id}`));

// ---------------------------------------------------------------------------------------------
// Providers: a realistic delivery, signed as the provider signs it

interface Delivery {
  eventId: string;
  body: string;
  /** Non-signature headers the provider sends (content type, event type, delivery id). */
  headers: Record<string, string>;
  expected: { quantity: number; occurredAt: number; metadata: Record<string, unknown> | null; eventType: string };
}

interface SignOptions {
  secret?: string;
  /** email: sign with this private key instead of the configured key's. */
  privateKey?: KeyObject;
  /** Unix seconds (stripe, chat, email). */
  at?: number;
  /** messaging: the URL the signature covers. */
  url?: string;
}

interface ProviderCase {
  provider: Provider;
  modelledOn: string;
  metric: string;
  secret: string;
  tenant: string;
  /** Lower-case name of the header that carries the signature. */
  signatureHeader: string;
  /** The delivery holds a JSON array of events (the email provider). */
  array?: boolean;
  /** Signs a timestamp that must be within 300 s of now. */
  timestamped?: boolean;
  createExtra?: Record<string, unknown>;
  delivery(): Delivery;
  sign(sourceId: string, d: Delivery, o?: SignOptions): Promise<Outgoing>;
  tamper(body: string): string;
}

const TWILIO_ACCOUNT = `AC${'a1b2c3d4'.repeat(4)}`;
const emailKeys = generateKeyPairSync('ec', { namedCurve: 'prime256v1' });
const otherEmailKeys = generateKeyPairSync('ec', { namedCurve: 'prime256v1' });
/** What the email provider's dashboard shows: base64 of the SPKI DER public key. */
const EMAIL_PUBLIC_KEY = emailKeys.publicKey.export({ format: 'der', type: 'spki' }).toString('base64');
const eventWebhook = new EventWebhook();

function emailSignature(body: string, timestamp: string, key: KeyObject): string {
  return ecdsaSign('sha256', Buffer.concat([Buffer.from(timestamp, 'utf8'), Buffer.from(body, 'utf8')]), { key, dsaEncoding: 'der' }).toString('base64');
}

function emailEvent(eventId: string, event: string, tenant: string, ts: number) {
  return {
    email: 'example@test.com',
    timestamp: ts,
    'smtp-id': '<14c5d75ce93.dfd.64b469@ismtpd-555>',
    event,
    category: ['cat facts'],
    sg_event_id: eventId,
    sg_message_id: `14c5d75ce93.dfd.64b469.filter0001.16648.${eventId}.0`,
    response: '250 OK',
    tenant_id: tenant,
  };
}

function twilioParams(messageSid: string, status = 'delivered'): Record<string, string> {
  return {
    ToCountry: 'US',
    SmsSid: messageSid,
    SmsStatus: status,
    MessageStatus: status,
    To: '+15558675310',
    MessagingServiceSid: 'MGXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXX',
    MessageSid: messageSid,
    AccountSid: TWILIO_ACCOUNT,
    From: '+15017122661',
    ApiVersion: '2010-04-01',
  };
}

const webhookUrl = (sourceId: string) => `${PUBLIC_URL}/v1/ingest/webhook/${sourceId}`;

function githubPush(owner = 'octo-org') {
  return {
    ref: 'refs/heads/main',
    before: '6113728f27ae82c7b1a177c8d03f9e96e0adf246',
    after: '0000000000000000000000000000000000000000',
    repository: {
      id: 1296269,
      node_id: 'MDEwOlJlcG9zaXRvcnkxMjk2MjY5',
      name: 'hello-world',
      full_name: `${owner}/hello-world`,
      private: false,
      owner: { login: owner, id: 6811672, type: 'Organization' },
    },
    pusher: { name: 'octocat', email: 'octocat@github.com' },
    sender: { login: 'octocat', id: 1, type: 'User' },
    commits: [{ id: 'c441029cf673f84c8b7db52d0a5944ee5c52ff89', message: 'Fix all the bugs', author: { name: 'Monalisa Octocat', email: 'mona@github.com' } }],
  };
}

const cases: ProviderCase[] = [
  {
    provider: 'payment',
    modelledOn: 'Stripe',
    metric: 'payment_cents',
    secret: 'whsec_5f3b2c1a0e9d8c7b6a5f4e3d2c1b0a99',
    tenant: 'cus_NffrFeUfNV2Hib',
    signatureHeader: 'stripe-signature',
    timestamped: true,
    delivery() {
      const eventId = `evt_3PqRsT${next()}LkdIwHu7ix0`;
      const created = seconds(now()) - 60;
      const body = JSON.stringify({
        id: eventId,
        object: 'event',
        api_version: '2024-06-20',
        created,
        data: {
          object: {
            id: 'pi_3MtwBwLkdIwHu7ix28a3tqPa',
            object: 'payment_intent',
            amount: 2000,
            amount_received: 2000,
            currency: 'usd',
            customer: 'cus_NffrFeUfNV2Hib',
            status: 'succeeded',
          },
        },
        livemode: false,
        pending_webhooks: 1,
        request: { id: 'req_y8Rq4Z2B8vWc1P', idempotency_key: '8f6c4b1e-3c6d-4b35-9d1e-2c0a3c8d5e7f' },
        type: 'payment_intent.succeeded',
      });
      return {
        eventId,
        body,
        headers: { 'content-type': 'application/json; charset=utf-8', 'user-agent': 'Stripe/1.0 (+https://stripe.com/docs/webhooks)' },
        expected: { quantity: 2000, occurredAt: created * 1000, metadata: { currency: 'usd' }, eventType: 'payment_intent.succeeded' },
      };
    },
    async sign(_sourceId, d, o = {}) {
      const header = Stripe.webhooks.generateTestHeaderString({ payload: d.body, secret: o.secret ?? this.secret, timestamp: o.at ?? seconds(now()) });
      return { body: d.body, headers: { ...d.headers, 'stripe-signature': header } };
    },
    tamper: (body) => body.replace('"amount":2000', '"amount":200000'),
  },
  {
    provider: 'messaging',
    modelledOn: 'Twilio',
    metric: 'sms_delivered',
    secret: 'twilio_auth_token_12345678901234567890ab',
    tenant: TWILIO_ACCOUNT,
    signatureHeader: 'x-twilio-signature',
    delivery() {
      const eventId = `SM${randomBytes(16).toString('hex')}`;
      return {
        eventId,
        body: new URLSearchParams(twilioParams(eventId)).toString(),
        headers: { 'content-type': 'application/x-www-form-urlencoded', 'user-agent': 'TwilioProxy/1.1' },
        expected: { quantity: 1, occurredAt: now(), metadata: null, eventType: 'delivered' },
      };
    },
    async sign(sourceId, d, o = {}) {
      const params = Object.fromEntries(new URLSearchParams(d.body));
      const signature = twilio.getExpectedTwilioSignature(o.secret ?? this.secret, o.url ?? webhookUrl(sourceId), params);
      return { body: d.body, headers: { ...d.headers, 'x-twilio-signature': signature } };
    },
    tamper: (body) => body.replace('To=%2B15558675310', 'To=%2B15558675311'),
  },
  {
    provider: 'email',
    modelledOn: 'SendGrid',
    metric: 'emails_delivered',
    secret: EMAIL_PUBLIC_KEY,
    tenant: 'acme-mail',
    signatureHeader: 'x-twilio-email-event-webhook-signature',
    array: true,
    timestamped: true,
    delivery() {
      const eventId = `sg_${next()}_ZjN2zYpH7FqWv3`;
      const ts = seconds(now()) - 30;
      const event = emailEvent(eventId, 'delivered', 'acme-mail', ts);
      return {
        eventId,
        body: `${JSON.stringify([event])}\r\n`,
        headers: { 'content-type': 'application/json', 'user-agent': 'SendGrid Event API' },
        expected: { quantity: 1, occurredAt: ts * 1000, metadata: { message_id: event.sg_message_id }, eventType: 'delivered' },
      };
    },
    async sign(_sourceId, d, o = {}) {
      const timestamp = String(o.at ?? seconds(now()));
      const signature = emailSignature(d.body, timestamp, o.privateKey ?? emailKeys.privateKey);
      return {
        body: d.body,
        headers: { ...d.headers, 'x-twilio-email-event-webhook-signature': signature, 'x-twilio-email-event-webhook-timestamp': timestamp },
      };
    },
    tamper: (body) => body.replace('"response":"250 OK"', '"response":"250 OK!"'),
  },
  {
    provider: 'code_hosting',
    modelledOn: 'GitHub',
    metric: 'git_pushes',
    secret: 'gh-webhook-secret-It5sASecret',
    tenant: 'octo-org',
    signatureHeader: 'x-hub-signature-256',
    delivery() {
      const eventId = randomUUID();
      return {
        eventId,
        body: JSON.stringify(githubPush()),
        headers: {
          'content-type': 'application/json',
          'user-agent': 'GitHub-Hookshot/044aadd',
          'x-github-event': 'push',
          'x-github-delivery': eventId,
          'x-github-hook-id': '292430182',
        },
        expected: { quantity: 1, occurredAt: now(), metadata: { repository: 'octo-org/hello-world' }, eventType: 'push' },
      };
    },
    async sign(_sourceId, d, o = {}) {
      return { body: d.body, headers: { ...d.headers, 'x-hub-signature-256': await octokitSign(o.secret ?? this.secret, d.body) } };
    },
    tamper: (body) => body.replace('Fix all the bugs', 'Fix all the bugz'),
  },
  {
    provider: 'chat',
    modelledOn: 'Slack',
    metric: 'chat_messages',
    secret: '8f742231b10e8888abcd99yyyzzz85a5',
    tenant: 'T0A1B2C3D',
    signatureHeader: 'x-slack-signature',
    timestamped: true,
    delivery() {
      const eventId = `Ev0PV52K${next()}`;
      const eventTime = seconds(now()) - 10;
      const body = JSON.stringify({
        token: 'XXYYZZ',
        team_id: 'T0A1B2C3D',
        api_app_id: 'A0MDYCDME',
        event: {
          type: 'message',
          channel: 'C024BE91L',
          user: 'U2147483697',
          text: 'Live long and prospect.',
          ts: '1355517523.000005',
          event_ts: '1355517523.000005',
          channel_type: 'channel',
        },
        type: 'event_callback',
        authed_users: ['U061F7AUR'],
        event_id: eventId,
        event_time: eventTime,
      });
      return {
        eventId,
        body,
        headers: { 'content-type': 'application/json', 'user-agent': 'Slackbot 1.0 (+https://api.slack.com/robots)' },
        expected: { quantity: 1, occurredAt: eventTime * 1000, metadata: { channel: 'C024BE91L' }, eventType: 'message' },
      };
    },
    async sign(_sourceId, d, o = {}) {
      // Slack's published algorithm: v0= hex HMAC-SHA256 of "v0:<timestamp>:<body>".
      const ts = String(o.at ?? seconds(now()));
      const signature = `v0=${hmacHex('sha256', o.secret ?? this.secret, `v0:${ts}:${d.body}`)}`;
      return { body: d.body, headers: { ...d.headers, 'x-slack-signature': signature, 'x-slack-request-timestamp': ts } };
    },
    tamper: (body) => body.replace('Live long and prospect.', 'Live long and prosper.'),
  },
  {
    provider: 'custom',
    modelledOn: 'our own HMAC scheme',
    metric: 'custom_units',
    secret: 'custom-shared-secret-0123456789',
    tenant: 'acme-custom',
    signatureHeader: 'x-signature-256',
    createExtra: { fieldMappings: { properties: { region: '$.region' } } },
    delivery() {
      const eventId = `job_${next()}`;
      const at = now() - 120_000;
      return {
        eventId,
        body: JSON.stringify({
          id: eventId,
          type: 'job.completed',
          tenant_id: 'acme-custom',
          quantity: 42,
          timestamp: new Date(at).toISOString(),
          region: 'eu-west-1',
        }),
        headers: { 'content-type': 'application/json' },
        expected: { quantity: 42, occurredAt: at, metadata: { region: 'eu-west-1' }, eventType: 'job.completed' },
      };
    },
    async sign(_sourceId, d, o = {}) {
      return { body: d.body, headers: { ...d.headers, 'x-signature-256': hmacHex('sha256', o.secret ?? this.secret, d.body) } };
    },
    tamper: (body) => body.replace('"quantity":42', '"quantity":4200'),
  },
];

const without = (headers: Record<string, string>, name: string) => Object.fromEntries(Object.entries(headers).filter(([k]) => k !== name));

for (const c of cases) {
  describe(`${c.provider} (${c.modelledOn}): signed with the provider's own algorithm`, () => {
    let source: any;
    let unsecured: any;
    let customerId: string;
    let metricId: string;

    before(async () => {
      metricId = await createMetric(api, c.metric);
      customerId = (await t.seed.customer(ws.test, { externalId: c.tenant })).id;
      source = await createSource(api, {
        provider: c.provider,
        displayName: `${c.modelledOn} production`,
        metricName: c.metric,
        signingSecret: c.secret,
        ...c.createExtra,
      });
      unsecured = await createSource(api, { provider: c.provider, displayName: `${c.modelledOn} without secret`, metricName: c.metric, ...c.createExtra });
    });

    const accepted = (d: Delivery, status: 'accepted' | 'duplicate' = 'accepted') => {
      const one = { status, event_id: d.eventId, metric_id: metricId, quantity: d.expected.quantity, tenant_id: c.tenant };
      return c.array ? { status, events: [one] } : one;
    };

    /** A delivery refused with 401: the envelope, the log entry and the audit event. */
    async function assertRefused(res: Sent, sourceId: string, reasonCode: string, body: string): Promise<void> {
      assertEnvelope(res, 401, 'WEBHOOK_SIGNATURE_INVALID');
      assert.deepEqual(Object.keys(res.body), ['success', 'errors']);
      const entry = await logEntry(res.logId);
      assert.equal(entry.sourceId, sourceId);
      assert.equal(entry.status, 'rejected');
      assert.equal(entry.verification, 'failed');
      assert.equal(entry.httpStatus, 401);
      assert.equal(entry.reasonCode, reasonCode, entry.reasonMessage);
      assert.deepEqual(entry.outcomes, []);
      assert.equal(entry.body, body, 'the raw body is kept');
      assert.equal(entry.bodyEncoding, 'utf8');
      const audit = await rejectionAudit(t, sourceId, res.logId);
      assert.equal(audit.severity, 'WARN');
      assert.equal(audit.payload.reason, reasonCode);
      assert.equal(audit.payload.httpStatus, 401);
    }

    it('200 accepts a realistic delivery: exactly the accepted-webhook response, and one usage event', async () => {
      const d = c.delivery();
      const res = await post(t, source.id, await c.sign(source.id, d));
      assert.equal(res.status, 200, JSON.stringify(res.body));
      assert.deepEqual(res.body, accepted(d));
      assert.deepEqual(await usageRows(t, ws.workspaceId, d.eventId), [
        {
          environment: 'test',
          customerId,
          metricName: c.metric,
          quantity: String(d.expected.quantity),
          occurredAt: d.expected.occurredAt,
          receivedAt: now(),
          eventId: d.eventId,
          metadata: d.expected.metadata,
          source: 'webhook',
        },
      ]);
    });

    it('the accepted delivery is in the ingestion log: verified, accepted, raw body, signature header redacted', async () => {
      const d = c.delivery();
      const res = await post(t, source.id, await c.sign(source.id, d));
      assert.equal(res.status, 200, JSON.stringify(res.body));
      assert.match(res.logId, /^whl_/);
      const entry = await logEntry(res.logId);
      assert.equal(entry.id, res.logId);
      assert.equal(entry.sourceId, source.id);
      assert.equal(entry.environment, 'test');
      assert.equal(entry.status, 'accepted');
      assert.equal(entry.verification, 'passed');
      assert.equal(entry.httpStatus, 200);
      assert.equal(entry.reasonCode, null);
      assert.equal(entry.eventType, d.expected.eventType);
      assert.equal(entry.replayOf, null);
      assert.equal(entry.body, d.body);
      assert.equal(entry.bodyEncoding, 'utf8');
      assert.equal(entry.headers[c.signatureHeader], '[redacted]');
      assert.deepEqual(entry.outcomes, [
        { index: 0, status: 'accepted', customerId, eventId: d.eventId, tenantId: c.tenant, quantity: d.expected.quantity, metricId },
      ]);
    });

    it('200 duplicate: the same request again is answered but not counted twice', async () => {
      const d = c.delivery();
      const signed = await c.sign(source.id, d);
      assert.deepEqual((await post(t, source.id, signed)).body, accepted(d));
      const again = await post(t, source.id, signed);
      assert.equal(again.status, 200, JSON.stringify(again.body));
      assert.deepEqual(again.body, accepted(d, 'duplicate'));
      assert.equal((await usageRows(t, ws.workspaceId, d.eventId)).length, 1);
      assert.equal((await logEntry(again.logId)).status, 'duplicate');
    });

    it('401 WEBHOOK_SIGNATURE_INVALID for a tampered body: logged as rejected with the raw body, audited at WARN, never counted', async () => {
      const d = c.delivery();
      const signed = await c.sign(source.id, d);
      const tampered = c.tamper(d.body);
      assert.notEqual(tampered, d.body, 'the tamper must change the body');
      const res = await post(t, source.id, { ...signed, body: tampered });
      await assertRefused(res, source.id, 'signature_mismatch', tampered);
      const entry = await logEntry(res.logId);
      assert.equal(entry.headers[c.signatureHeader], '[redacted]');
      assert.ok(!JSON.stringify(entry).includes(signed.headers[c.signatureHeader]!), 'the signature value is not stored anywhere in the entry');
      assert.deepEqual(await usageRows(t, ws.workspaceId, d.eventId), []);
    });

    it('401 when signed with another secret', async () => {
      const d = c.delivery();
      const signed = await c.sign(source.id, d, c.provider === 'email' ? { privateKey: otherEmailKeys.privateKey } : { secret: `${c.secret}-other` });
      const res = await post(t, source.id, signed);
      await assertRefused(res, source.id, 'signature_mismatch', d.body);
      assert.deepEqual(await usageRows(t, ws.workspaceId, d.eventId), []);
    });

    it('401 when the signature header is missing', async () => {
      const d = c.delivery();
      const signed = await c.sign(source.id, d);
      const res = await post(t, source.id, { ...signed, headers: without(signed.headers, c.signatureHeader) });
      await assertRefused(res, source.id, 'missing_signature', d.body);
      assert.deepEqual(await usageRows(t, ws.workspaceId, d.eventId), []);
    });

    it('401 on a source created without a signing secret, even for a correctly signed request (fail closed)', async () => {
      assert.equal(unsecured.hasSigningSecret, false);
      const d = c.delivery();
      const res = await post(t, unsecured.id, await c.sign(unsecured.id, d));
      await assertRefused(res, unsecured.id, 'missing_secret', d.body);
      assert.deepEqual(await usageRows(t, ws.workspaceId, d.eventId), []);
    });

    if (c.timestamped) {
      it('401 for a signed timestamp 301 s old (stale), while 300 s old still passes', async () => {
        const stale = c.delivery();
        const res = await post(t, source.id, await c.sign(source.id, stale, { at: seconds(now()) - 301 }));
        await assertRefused(res, source.id, 'timestamp_outside_tolerance', stale.body);
        assert.deepEqual(await usageRows(t, ws.workspaceId, stale.eventId), []);
        const edge = c.delivery();
        assert.equal((await post(t, source.id, await c.sign(source.id, edge, { at: seconds(now()) - 300 }))).status, 200);
      });

      it('401 for a signed timestamp 301 s in the future', async () => {
        const d = c.delivery();
        const res = await post(t, source.id, await c.sign(source.id, d, { at: seconds(now()) + 301 }));
        await assertRefused(res, source.id, 'timestamp_outside_tolerance', d.body);
        assert.deepEqual(await usageRows(t, ws.workspaceId, d.eventId), []);
      });
    }
  });
}

// ---------------------------------------------------------------------------------------------

describe('messaging (Twilio): the URL the signature covers is PUBLIC_URL', () => {
  const c = cases.find((x) => x.provider === 'messaging')!;
  let source: any;

  before(async () => {
    await createMetric(api, 'sms_json');
    await t.seed.customer(ws.test, { externalId: 'AC-json-account' });
    source = await createSource(api, { provider: 'messaging', displayName: 'Twilio JSON', metricName: 'sms_json', signingSecret: c.secret });
  });

  it('200 for a form post signed over the public URL; the log records that URL', async () => {
    const d = c.delivery();
    const res = await post(t, source.id, await c.sign(source.id, d, { url: `${PUBLIC_URL}/v1/ingest/webhook/${source.id}` }));
    assert.equal(res.status, 200, JSON.stringify(res.body));
    assert.equal(res.body.status, 'accepted');
    assert.equal((await logEntry(res.logId)).url, `${PUBLIC_URL}/v1/ingest/webhook/${source.id}`);
  });

  it('401 for a form post signed over the internal URL the server itself sees', async () => {
    for (const internal of [`http://localhost:80/v1/ingest/webhook/${source.id}`, `http://localhost/v1/ingest/webhook/${source.id}`]) {
      const d = c.delivery();
      const res = await post(t, source.id, await c.sign(source.id, d, { url: internal }));
      assertEnvelope(res, 401, 'WEBHOOK_SIGNATURE_INVALID');
      assert.equal((await logEntry(res.logId)).reasonCode, 'signature_mismatch');
      assert.deepEqual(await usageRows(t, ws.workspaceId, d.eventId), []);
    }
  });

  /** A JSON body: Twilio signs the URL carrying bodySHA256 (twilio.getExpectedBodyHash), with no parameters. */
  function jsonDelivery(messageSid: string) {
    const body = JSON.stringify({ MessageSid: messageSid, AccountSid: 'AC-json-account', MessageStatus: 'delivered', To: '+15558675310' });
    const query = `?bodySHA256=${twilio.getExpectedBodyHash(body)}`;
    const signature = twilio.getExpectedTwilioSignature(c.secret, `${PUBLIC_URL}/v1/ingest/webhook/${source.id}${query}`, {});
    return { body, query, headers: { 'content-type': 'application/json', 'x-twilio-signature': signature } };
  }

  it('200 for a JSON body signed through bodySHA256 in the URL (twilio.validateRequestWithBody agrees)', async () => {
    const sid = `SM${randomBytes(16).toString('hex')}`;
    const req = jsonDelivery(sid);
    const url = `${PUBLIC_URL}/v1/ingest/webhook/${source.id}${req.query}`;
    assert.equal(twilio.validateRequestWithBody(c.secret, req.headers['x-twilio-signature'], url, req.body), true);
    const res = await post(t, source.id, req);
    assert.equal(res.status, 200, JSON.stringify(res.body));
    assert.deepEqual(res.body, { status: 'accepted', event_id: sid, metric_id: source.metricId, quantity: 1, tenant_id: 'AC-json-account' });
    const rows = await usageRows(t, ws.workspaceId, sid);
    assert.equal(rows.length, 1);
    assert.equal(rows[0]!.metricName, 'sms_json');
    assert.equal((await logEntry(res.logId)).url, url);
  });

  it('401 body_hash_mismatch for a tampered JSON body under a valid bodySHA256 signature', async () => {
    const sid = `SM${randomBytes(16).toString('hex')}`;
    const req = jsonDelivery(sid);
    const res = await post(t, source.id, { ...req, body: req.body.replace('+15558675310', '+15558675311') });
    assertEnvelope(res, 401, 'WEBHOOK_SIGNATURE_INVALID');
    assert.equal((await logEntry(res.logId)).reasonCode, 'body_hash_mismatch');
    assert.deepEqual(await usageRows(t, ws.workspaceId, sid), []);
  });

  it('401 for a JSON body signed over the bare URL (without bodySHA256 the body is not covered)', async () => {
    const body = JSON.stringify({ MessageSid: 'SMnohash', AccountSid: 'AC-json-account', MessageStatus: 'delivered' });
    const signature = twilio.getExpectedTwilioSignature(c.secret, `${PUBLIC_URL}/v1/ingest/webhook/${source.id}`, {});
    const res = await post(t, source.id, { body, headers: { 'content-type': 'application/json', 'x-twilio-signature': signature } });
    assertEnvelope(res, 401, 'WEBHOOK_SIGNATURE_INVALID');
    assert.deepEqual(await usageRows(t, ws.workspaceId, 'SMnohash'), []);
  });
});

// ---------------------------------------------------------------------------------------------

describe('email (SendGrid): a JSON array of events', () => {
  let source: any;
  let metricId: string;

  before(async () => {
    metricId = await createMetric(api, 'emails_batch');
    source = await createSource(api, { provider: 'email', displayName: 'SendGrid batches', metricName: 'emails_batch', signingSecret: EMAIL_PUBLIC_KEY });
  });

  const signedBatch = (events: unknown[]) => {
    const body = `${JSON.stringify(events)}\r\n`;
    const timestamp = String(seconds(now()));
    return {
      body,
      headers: {
        'content-type': 'application/json',
        'x-twilio-email-event-webhook-signature': emailSignature(body, timestamp, emailKeys.privateKey),
        'x-twilio-email-event-webhook-timestamp': timestamp,
      },
    };
  };
  const one = (status: string, eventId: string, tenant = 'acme-mail') => ({ status, event_id: eventId, metric_id: metricId, quantity: 1, tenant_id: tenant });

  it('the test signature is one @sendgrid/eventwebhook accepts with the configured (dashboard) key', () => {
    const req = signedBatch([emailEvent('sg_check', 'delivered', 'acme-mail', seconds(now()))]);
    const key = eventWebhook.convertPublicKeyToECDSA(EMAIL_PUBLIC_KEY);
    assert.equal(
      eventWebhook.verifySignature(key, req.body, req.headers['x-twilio-email-event-webhook-signature'], req.headers['x-twilio-email-event-webhook-timestamp']),
      true,
    );
    assert.equal(
      eventWebhook.verifySignature(
        key,
        `${req.body} `,
        req.headers['x-twilio-email-event-webhook-signature'],
        req.headers['x-twilio-email-event-webhook-timestamp'],
      ),
      false,
    );
  });

  it('200 with an outcome per element: two delivered events accepted, the open event discarded; two usage events', async () => {
    const ts = seconds(now()) - 5;
    const ids = [`sg_b${next()}`, `sg_b${next()}`, `sg_b${next()}`];
    const res = await post(
      t,
      source.id,
      signedBatch([
        emailEvent(ids[0]!, 'delivered', 'acme-mail', ts),
        emailEvent(ids[1]!, 'open', 'acme-mail', ts),
        emailEvent(ids[2]!, 'delivered', 'acme-mail', ts),
      ]),
    );
    assert.equal(res.status, 200, JSON.stringify(res.body));
    assert.deepEqual(res.body, {
      status: 'accepted',
      events: [one('accepted', ids[0]!), { status: 'discarded', event_type: 'open', reason: 'filtered' }, one('accepted', ids[2]!)],
    });
    const rows = await usageRows(t, ws.workspaceId);
    assert.deepEqual(
      rows.filter((r) => ids.includes(r.eventId ?? '')).map((r) => [r.eventId, r.metricName, r.occurredAt]),
      [
        [ids[0], 'emails_batch', ts * 1000],
        [ids[2], 'emails_batch', ts * 1000],
      ],
    );
  });

  it('the same sg_event_id twice in one array is stored once: the second element is a duplicate', async () => {
    const id = `sg_twice${next()}`;
    const ts = seconds(now()) - 5;
    const res = await post(t, source.id, signedBatch([emailEvent(id, 'delivered', 'acme-mail', ts), emailEvent(id, 'delivered', 'acme-mail', ts)]));
    assert.equal(res.status, 200, JSON.stringify(res.body));
    assert.deepEqual(res.body, { status: 'accepted', events: [one('accepted', id), one('duplicate', id)] });
    assert.equal((await usageRows(t, ws.workspaceId, id)).length, 1);
  });

  it('422 when one element names an unknown tenant: errors[] gives its index, events every outcome, the good ones are stored', async () => {
    const ts = seconds(now()) - 5;
    const ids = [`sg_u${next()}`, `sg_u${next()}`, `sg_u${next()}`];
    const req = signedBatch([
      emailEvent(ids[0]!, 'delivered', 'acme-mail', ts),
      emailEvent(ids[1]!, 'delivered', 'nobody-we-know', ts),
      emailEvent(ids[2]!, 'delivered', 'acme-mail', ts),
    ]);
    const res = await post(t, source.id, req);
    const e = assertEnvelope(res, 422, 'UNKNOWN_CUSTOMER', 'field_mappings.tenant_id');
    assert.deepEqual(Object.keys(res.body).sort(), ['errors', 'events', 'success']);
    assert.equal(res.body.errors.length, 1);
    assert.equal((e as any).index, 1);
    assert.match(e.message, /nobody-we-know/);
    assert.deepEqual(res.body.events[0], one('accepted', ids[0]!));
    assert.equal(res.body.events[1].status, 'rejected');
    assert.equal(res.body.events[1].code, 'UNKNOWN_CUSTOMER');
    assert.equal(res.body.events[1].field, 'field_mappings.tenant_id');
    assert.deepEqual(res.body.events[2], one('accepted', ids[2]!));
    for (const [id, n] of [
      [ids[0]!, 1],
      [ids[1]!, 0],
      [ids[2]!, 1],
    ] as const)
      assert.equal((await usageRows(t, ws.workspaceId, id)).length, n, id);
    const entry = await logEntry(res.logId);
    assert.equal(entry.httpStatus, 422);
    assert.equal(entry.reasonCode, 'UNKNOWN_CUSTOMER');
    assert.equal(entry.outcomes.length, 3);

    // The provider retries a non-2xx answer: the stored events come back as duplicates.
    const retry = await post(t, source.id, signedBatch(JSON.parse(req.body)));
    assertEnvelope(retry, 422, 'UNKNOWN_CUSTOMER', 'field_mappings.tenant_id');
    assert.deepEqual(
      retry.body.events.map((x: { status: string }) => x.status),
      ['duplicate', 'rejected', 'duplicate'],
    );
    assert.deepEqual(retry.body.events[0], one('duplicate', ids[0]!));
    for (const id of [ids[0]!, ids[2]!]) assert.equal((await usageRows(t, ws.workspaceId, id)).length, 1, id);
  });
});

// ---------------------------------------------------------------------------------------------

describe('code_hosting (GitHub): event type and id from headers', () => {
  const c = cases.find((x) => x.provider === 'code_hosting')!;
  let source: any;
  let legacy: any;

  before(async () => {
    await createMetric(api, 'gh_events');
    source = await createSource(api, { provider: 'code_hosting', displayName: 'GitHub', metricName: 'gh_events', signingSecret: c.secret });
    legacy = await createSource(api, {
      provider: 'code_hosting',
      displayName: 'GitHub legacy',
      metricName: 'gh_events',
      signingSecret: c.secret,
      signature: { algorithm: 'sha1' },
    });
  });

  const push = async (delivery: string, event = 'push', body = JSON.stringify(githubPush())): Promise<Outgoing> => ({
    body,
    headers: {
      'content-type': 'application/json',
      'x-github-event': event,
      'x-github-delivery': delivery,
      'x-hub-signature-256': await octokitSign(c.secret, body),
    },
  });

  it('the event id is X-GitHub-Delivery: the same body under a new delivery id is a new event, under the same id a duplicate', async () => {
    const [a, b] = [randomUUID(), randomUUID()];
    assert.equal((await post(t, source.id, await push(a))).body.status, 'accepted');
    assert.equal((await post(t, source.id, await push(b))).body.status, 'accepted');
    assert.equal((await post(t, source.id, await push(a))).body.status, 'duplicate');
    assert.equal((await usageRows(t, ws.workspaceId, a)).length, 1);
    assert.equal((await usageRows(t, ws.workspaceId, b)).length, 1);
  });

  it("200 discarded for a 'ping' (X-GitHub-Event outside the filter ['push']); nothing counted; logged as discarded", async () => {
    const delivery = randomUUID();
    const body = JSON.stringify({
      zen: 'Design for failure.',
      hook_id: 292430182,
      hook: { type: 'Organization', id: 292430182, events: ['push'] },
      repository: githubPush().repository,
    });
    const res = await post(t, source.id, await push(delivery, 'ping', body));
    assert.equal(res.status, 200, JSON.stringify(res.body));
    assert.deepEqual(res.body, { status: 'discarded', event_type: 'ping', reason: 'filtered' });
    assert.deepEqual(await usageRows(t, ws.workspaceId, delivery), []);
    const entry = await logEntry(res.logId);
    assert.equal(entry.status, 'discarded');
    assert.equal(entry.eventType, 'ping');
    assert.equal(entry.reasonCode, 'filtered');
  });

  it('legacy sha1 (signature {algorithm: sha1}): verified from X-Hub-Signature; a sha256 header alone is refused there', async () => {
    assert.equal(legacy.signature.header, 'X-Hub-Signature');
    const delivery = randomUUID();
    const body = JSON.stringify(githubPush());
    const headers = { 'content-type': 'application/json', 'x-github-event': 'push', 'x-github-delivery': delivery };
    const refused = await post(t, legacy.id, { body, headers: { ...headers, 'x-hub-signature-256': await octokitSign(c.secret, body) } });
    assertEnvelope(refused, 401, 'WEBHOOK_SIGNATURE_INVALID');
    assert.equal((await logEntry(refused.logId)).reasonCode, 'missing_signature');
    const res = await post(t, legacy.id, { body, headers: { ...headers, 'x-hub-signature': `sha1=${hmacHex('sha1', c.secret, body)}` } });
    assert.equal(res.status, 200, JSON.stringify(res.body));
    assert.equal(res.body.status, 'accepted');
    assert.equal(res.body.event_id, delivery);
    assert.equal((await logEntry(res.logId)).headers['x-hub-signature'], '[redacted]');
  });
});

// ---------------------------------------------------------------------------------------------

describe('chat (Slack): the Events API URL check', () => {
  const c = cases.find((x) => x.provider === 'chat')!;
  let source: any;

  before(async () => {
    await createMetric(api, 'slack_events');
    source = await createSource(api, { provider: 'chat', displayName: 'Slack', metricName: 'slack_events', signingSecret: c.secret });
  });

  const challengeBody = JSON.stringify({
    token: 'Jhj5dZrVaK7ZwHHjRyZWjbDl',
    challenge: '3eZbrw1aBm2rZgRNFdxV2595E9CY3gmdALWMmHkvFXO7tYXAYM8P',
    type: 'url_verification',
  });

  it('200 echoes the signed url_verification challenge as {challenge}; nothing is counted', async () => {
    const before = (await usageRows(t, ws.workspaceId)).length;
    const d = {
      eventId: '',
      body: challengeBody,
      headers: { 'content-type': 'application/json' },
      expected: { quantity: 0, occurredAt: 0, metadata: null, eventType: '' },
    };
    const res = await post(t, source.id, await c.sign(source.id, d));
    assert.equal(res.status, 200, JSON.stringify(res.body));
    // Slack only reads `challenge`; the body is {challenge} (a status beside it would do no harm).
    assert.equal(res.body.challenge, '3eZbrw1aBm2rZgRNFdxV2595E9CY3gmdALWMmHkvFXO7tYXAYM8P');
    assert.equal(res.body.event_id, undefined);
    assert.equal((await usageRows(t, ws.workspaceId)).length, before);
    const entry = await logEntry(res.logId);
    assert.equal(entry.status, 'discarded');
    assert.equal(entry.eventType, 'url_verification');
  });

  it('401 for an unsigned url_verification challenge: the challenge is not echoed', async () => {
    const res = await post(t, source.id, { body: challengeBody, headers: { 'content-type': 'application/json' } });
    assertEnvelope(res, 401, 'WEBHOOK_SIGNATURE_INVALID');
    assert.equal(res.body.challenge, undefined);
  });
});

// ---------------------------------------------------------------------------------------------

describe('event filter', () => {
  const c = cases.find((x) => x.provider === 'payment')!;
  let source: any;

  before(async () => {
    await createMetric(api, 'filtered_payments');
    source = await createSource(api, { provider: 'payment', displayName: 'Stripe filtered', metricName: 'filtered_payments', signingSecret: c.secret });
  });

  it('200 discarded for an event type outside the filter: no usage event, no rejection audit, logged as discarded', async () => {
    const d = c.delivery();
    d.body = d.body.replace('"type":"payment_intent.succeeded"', '"type":"charge.refunded"');
    const res = await post(t, source.id, await c.sign(source.id, d));
    assert.equal(res.status, 200, JSON.stringify(res.body));
    assert.deepEqual(res.body, { status: 'discarded', event_type: 'charge.refunded', reason: 'filtered' });
    assert.deepEqual(await usageRows(t, ws.workspaceId, d.eventId), []);
    const entry = await logEntry(res.logId);
    assert.equal(entry.status, 'discarded');
    assert.equal(entry.verification, 'passed');
    assert.equal(entry.httpStatus, 200);
    assert.equal(entry.reasonCode, 'filtered');
    assert.equal(entry.eventType, 'charge.refunded');
    assert.deepEqual(
      (await auditRows(t, 'webhook.rejected', source.id)).filter((a) => a.payload.logEntryId === res.logId),
      [],
    );
  });

  it('401 for an event type outside the filter with a bad signature: verification comes first', async () => {
    const d = c.delivery();
    d.body = d.body.replace('"type":"payment_intent.succeeded"', '"type":"charge.refunded"');
    const res = await post(t, source.id, await c.sign(source.id, d, { secret: 'whsec_wrong' }));
    assertEnvelope(res, 401, 'WEBHOOK_SIGNATURE_INVALID');
    assert.equal((await logEntry(res.logId)).status, 'rejected');
  });
});

// ---------------------------------------------------------------------------------------------

describe('mapping: a verified event that cannot become usage', () => {
  const SECRET = 'mapping-secret';
  let source: any;
  let customerId: string;

  before(async () => {
    await createMetric(api, 'mapped_units');
    customerId = (await t.seed.customer(ws.test, { externalId: 'acme-mapping' })).id;
    source = await createSource(api, { provider: 'custom', displayName: 'Mapping checks', metricName: 'mapped_units', signingSecret: SECRET });
  });

  const event = (fields: Record<string, unknown>) => ({ id: `map_${next()}`, type: 'job.completed', tenant_id: 'acme-mapping', quantity: 5, ...fields });
  const send = (body: Record<string, unknown> | string) => post(t, source.id, customSigned(SECRET, typeof body === 'string' ? body : JSON.stringify(body)));

  async function assertMappingRejected(res: Sent, code: string, field: string, eventId: string): Promise<void> {
    assertEnvelope(res, 422, code, field);
    assert.deepEqual(Object.keys(res.body), ['success', 'errors']);
    assert.equal(res.body.errors.length, 1);
    assert.deepEqual(await usageRows(t, ws.workspaceId, eventId), []);
    const entry = await logEntry(res.logId);
    assert.equal(entry.status, 'rejected');
    assert.equal(entry.verification, 'passed');
    assert.equal(entry.httpStatus, 422);
    assert.equal(entry.reasonCode, code);
    const audit = await rejectionAudit(t, source.id, res.logId);
    assert.equal(audit.severity, 'WARN');
  }

  it('422 MAPPING_FAILED naming field_mappings.tenant_id when the payload has no tenant', async () => {
    const e = event({ tenant_id: undefined });
    const err = await (async () => {
      const res = await send(e);
      await assertMappingRejected(res, 'MAPPING_FAILED', 'field_mappings.tenant_id', e.id);
      return res.body.errors[0];
    })();
    assert.match(err.message, /^field_mappings\.tenant_id /);
  });

  it('422 MAPPING_FAILED naming field_mappings.quantity when the payload has no quantity', async () => {
    const e = event({ quantity: undefined });
    await assertMappingRejected(await send(e), 'MAPPING_FAILED', 'field_mappings.quantity', e.id);
  });

  it('422 UNKNOWN_CUSTOMER naming field_mappings.tenant_id for a tenant that is no customer', async () => {
    const e = event({ tenant_id: 'acme-unknown' });
    await assertMappingRejected(await send(e), 'UNKNOWN_CUSTOMER', 'field_mappings.tenant_id', e.id);
  });

  it('200 resolves tenant_id given as the cus_ id as well as the externalId', async () => {
    const e = event({ tenant_id: customerId });
    const res = await send(e);
    assert.equal(res.status, 200, JSON.stringify(res.body));
    assert.equal((await usageRows(t, ws.workspaceId, e.id))[0]!.customerId, customerId);
  });

  it('422 TIMESTAMP_TOO_OLD naming field_mappings.timestamp for an event 90 days and 1 minute old', async () => {
    const e = event({ timestamp: new Date(now() - 90 * DAY - 60_000).toISOString() });
    await assertMappingRejected(await send(e), 'TIMESTAMP_TOO_OLD', 'field_mappings.timestamp', e.id);
  });

  it('200 for an event 89 days old (webhooks allow 90 days), which the usage API itself refuses (35 days)', async () => {
    const occurredAt = now() - 89 * DAY;
    const e = event({ timestamp: new Date(occurredAt).toISOString() });
    const res = await send(e);
    assert.equal(res.status, 200, JSON.stringify(res.body));
    assert.equal(res.body.status, 'accepted');
    assert.equal((await usageRows(t, ws.workspaceId, e.id))[0]!.occurredAt, occurredAt);
    const viaApi = await api.post('/v1/ingest/batch', {
      events: [{ customerId, metricName: 'mapped_units', quantity: 1, occurredAt: new Date(occurredAt).toISOString() }],
    });
    assert.equal(viaApi.status, 400, JSON.stringify(viaApi.body));
    assert.equal(viaApi.body.errors[0].code, 'TIMESTAMP_TOO_OLD');
  });

  it('200 for a Unix-seconds timestamp, stored as that instant', async () => {
    const at = seconds(now()) - 3600;
    const e = event({ timestamp: at });
    assert.equal((await send(e)).status, 200);
    assert.equal((await usageRows(t, ws.workspaceId, e.id))[0]!.occurredAt, at * 1000);
  });

  it('422 TIMESTAMP_IN_FUTURE for an event more than 5 minutes ahead', async () => {
    const e = event({ timestamp: new Date(now() + 5 * 60_000 + 1000).toISOString() });
    await assertMappingRejected(await send(e), 'TIMESTAMP_IN_FUTURE', 'field_mappings.timestamp', e.id);
  });

  it('422 NEGATIVE_QUANTITY naming field_mappings.quantity for a negative quantity', async () => {
    const e = event({ quantity: -3 });
    await assertMappingRejected(await send(e), 'NEGATIVE_QUANTITY', 'field_mappings.quantity', e.id);
  });

  it('400 INVALID_JSON for a correctly signed body that is not JSON; logged as rejected, verification passed', async () => {
    const body = 'id=not-json&tenant_id=acme-mapping';
    const res = await send(body);
    assertEnvelope(res, 400, 'INVALID_JSON');
    const entry = await logEntry(res.logId);
    assert.equal(entry.status, 'rejected');
    assert.equal(entry.verification, 'passed');
    assert.equal(entry.httpStatus, 400);
    assert.equal(entry.reasonCode, 'INVALID_BODY');
    assert.equal(entry.body, body);
  });

  it('400 INVALID_JSON for a signed body whose timestamp holds a 10,000-deep value (it once overflowed the stack); logged, nothing stored', async () => {
    const e = event({});
    const body = JSON.stringify(e).replace('"type":', `"timestamp":${'['.repeat(10_000)}${']'.repeat(10_000)},"type":`);
    const res = await send(body);
    const err = assertEnvelope(res, 400, 'INVALID_JSON', 'body');
    assert.match(err.message, /more than 64 levels deep/);
    const entry = await logEntry(res.logId);
    assert.equal(entry.status, 'rejected');
    assert.equal(entry.verification, 'passed');
    assert.equal(entry.reasonCode, 'INVALID_BODY');
    assert.equal(entry.body, body);
    assert.deepEqual(await usageRows(t, ws.workspaceId, e.id), []);
  });

  it('400 naming body.tenant_id for a NUL character in a signed body; logged with its raw body, nothing stored', async () => {
    const e = event({ tenant_id: 'acme\u0000mapping' });
    const res = await send(e);
    const err = assertEnvelope(res, 400, 'VALIDATION_FAILED', 'body.tenant_id');
    assert.match(err.message, /NUL character/);
    const entry = await logEntry(res.logId);
    assert.equal(entry.status, 'rejected');
    assert.equal(entry.httpStatus, 400);
    assert.equal(entry.reasonCode, 'INVALID_BODY');
    assert.deepEqual(await usageRows(t, ws.workspaceId, e.id), []);
  });

  it('400 naming body.id for %00 in a signed form body', async () => {
    const res = await post(
      t,
      source.id,
      customSigned(SECRET, 'id=a%00b&tenant_id=acme-mapping&quantity=1', { 'content-type': 'application/x-www-form-urlencoded' }),
    );
    assertEnvelope(res, 400, 'VALIDATION_FAILED', 'body.id');
  });

  it('401, not 400, for a body that is not JSON and not signed: the signature is checked before parsing', async () => {
    const res = await post(t, source.id, { body: '{not json', headers: { 'content-type': 'application/json', 'x-signature-256': 'ab'.repeat(32) } });
    assertEnvelope(res, 401, 'WEBHOOK_SIGNATURE_INVALID');
  });
});

// ---------------------------------------------------------------------------------------------
// A file-backed SQLite app: usage and the webhook's dedup claims go through the writer thread,
// which must read the frozen clock of the main thread.

describe('dedup window (file-backed SQLite: through the writer thread)', () => {
  const SECRET = 'dedup-secret';
  let d: TestApp;
  let dws: TenantHandle;
  let standard: any;
  let hourly: any;
  let other: any;

  before(async () => {
    d = await createTestApp({ sqliteFile: true, config: NO_RATE_LIMIT });
    dws = await d.seed.workspace();
    const dapi = d.seed.client(dws.test.secretKey);
    await createMetric(dapi, 'deduped');
    await d.seed.customer(dws.test, { externalId: 'acme-dedup' });
    standard = await createSource(dapi, { provider: 'custom', displayName: 'Default window', metricName: 'deduped', signingSecret: SECRET });
    hourly = await createSource(dapi, {
      provider: 'custom',
      displayName: 'One hour window',
      metricName: 'deduped',
      signingSecret: SECRET,
      dedupWindowHours: 1,
    });
    other = await createSource(dapi, { provider: 'custom', displayName: 'Another source', metricName: 'deduped', signingSecret: SECRET });
  });
  after(() => d.close());

  const send = (sourceId: string, id: string) =>
    post(d, sourceId, customSigned(SECRET, JSON.stringify({ id, type: 'job.completed', tenant_id: 'acme-dedup', quantity: 1 })));
  const count = async (id: string) => (await usageRows(d, dws.workspaceId, id)).length;

  it('the default window is 72 hours: a duplicate at 72 h - 1 ms, accepted again at 72 h + 1 ms', async () => {
    assert.equal(standard.dedupWindowHours, 72);
    assert.equal((await send(standard.id, 'evt_72h')).body.status, 'accepted');
    d.clock.advance(72 * HOUR - 1);
    const dup = await send(standard.id, 'evt_72h');
    assert.equal(dup.status, 200);
    assert.equal(dup.body.status, 'duplicate');
    assert.equal(await count('evt_72h'), 1);
    d.clock.advance(2);
    const again = await send(standard.id, 'evt_72h');
    assert.equal(again.status, 200);
    assert.equal(again.body.status, 'accepted');
    assert.equal(await count('evt_72h'), 2);
  });

  it("the writer thread stores the source's display name: on the entry, and on webhook.rejected", async () => {
    const dapi = d.seed.client(dws.test.secretKey);
    const accepted = await send(other.id, 'evt_named_thread');
    assert.equal(accepted.status, 200, JSON.stringify(accepted.body));
    const refused = await post(d, other.id, customSigned('not-the-secret', '{"id":"evt_named_thread_2"}'));
    assertEnvelope(refused, 401, 'WEBHOOK_SIGNATURE_INVALID');
    for (const res of [accepted, refused]) assert.equal((await ok(dapi.get(`/api/v1/webhook-log/${res.logId}`))).sourceDisplayName, 'Another source');
    assert.equal((await rejectionAudit(d, other.id, refused.logId)).payload.sourceDisplayName, 'Another source');
  });

  it('a source with dedupWindowHours 1: a duplicate within the hour, accepted again after it', async () => {
    assert.equal((await send(hourly.id, 'evt_1h')).body.status, 'accepted');
    d.clock.advance(HOUR - 1);
    assert.equal((await send(hourly.id, 'evt_1h')).body.status, 'duplicate');
    d.clock.advance(2);
    assert.equal((await send(hourly.id, 'evt_1h')).body.status, 'accepted');
    assert.equal(await count('evt_1h'), 2);
  });

  it('two sources with the same provider event id are independent', async () => {
    assert.equal((await send(standard.id, 'evt_shared')).body.status, 'accepted');
    assert.equal((await send(other.id, 'evt_shared')).body.status, 'accepted');
    assert.equal((await send(other.id, 'evt_shared')).body.status, 'duplicate');
    assert.equal(await count('evt_shared'), 2);
  });
});

// ---------------------------------------------------------------------------------------------

describe('concurrent retries of one delivery', () => {
  const SECRET = 'concurrent-secret';
  let source: any;

  before(async () => {
    await createMetric(api, 'concurrent_units');
    await t.seed.customer(ws.test, { externalId: 'acme-concurrent' });
    source = await createSource(api, { provider: 'custom', displayName: 'Concurrent', metricName: 'concurrent_units', signingSecret: SECRET });
  });

  it('8 identical deliveries at once: exactly one accepted, the others duplicates, one usage event', async () => {
    const req = customSigned(SECRET, JSON.stringify({ id: 'evt_race', type: 'job.completed', tenant_id: 'acme-concurrent', quantity: 1 }));
    const results = await Promise.all(Array.from({ length: 8 }, () => post(t, source.id, req)));
    for (const r of results) assert.equal(r.status, 200, JSON.stringify(r.body));
    assert.deepEqual(results.map((r) => r.body.status).sort(), ['accepted', ...Array(7).fill('duplicate')]);
    assert.equal((await usageRows(t, ws.workspaceId, 'evt_race')).length, 1);
  });
});

// ---------------------------------------------------------------------------------------------

describe('replay from the ingestion log', () => {
  const SECRET = 'replay-secret';
  let source: any;
  let rejectedId: string;
  let failedId: string;

  before(async () => {
    await createMetric(api, 'replayed_units');
    source = await createSource(api, { provider: 'custom', displayName: 'Replays', metricName: 'replayed_units', signingSecret: SECRET });
    const body = JSON.stringify({ id: 'evt_replay_1', type: 'job.completed', tenant_id: 'acme-late', quantity: 7 });
    const res = await post(t, source.id, customSigned(SECRET, body));
    assertEnvelope(res, 422, 'UNKNOWN_CUSTOMER');
    rejectedId = res.logId;
    const failed = await post(t, source.id, customSigned('not-the-secret', body));
    assertEnvelope(failed, 401, 'WEBHOOK_SIGNATURE_INVALID');
    failedId = failed.logId;
  });

  it('200: after the customer is created, replaying the UNKNOWN_CUSTOMER entry stores it; the new entry names the original in replayOf', async () => {
    const customer = await t.seed.customer(ws.test, { externalId: 'acme-late' });
    const originalReceipt = (await logEntry(rejectedId)).receivedAt;
    t.clock.advance(10 * 60_000);
    const res = await api.post(`/api/v1/webhook-log/${rejectedId}/replay`);
    assert.equal(res.status, 200, JSON.stringify(res.body));
    assert.match(res.body.id, /^whl_/);
    assert.notEqual(res.body.id, rejectedId);
    assert.equal(res.body.replayOf, rejectedId);
    assert.equal(res.body.status, 'accepted');
    assert.equal(res.body.httpStatus, 200);
    assert.equal(res.body.verification, 'passed');
    assert.equal(res.body.sourceId, source.id);
    assert.deepEqual(JSON.parse(res.body.body), { id: 'evt_replay_1', type: 'job.completed', tenant_id: 'acme-late', quantity: 7 });
    const rows = await usageRows(t, ws.workspaceId, 'evt_replay_1');
    assert.equal(rows.length, 1);
    assert.equal(rows[0]!.customerId, customer.id);
    assert.equal(rows[0]!.quantity, '7');
    // The body maps no timestamp: the event happened when the original request was received, not at the replay.
    assert.equal(rows[0]!.occurredAt, Date.parse(originalReceipt));
    assert.equal(rows[0]!.receivedAt, now());
    assert.equal(res.body.receivedAt, new Date(now()).toISOString());
    assert.deepEqual((await logEntry(res.body.id)).replayOf, rejectedId);
    const audit = await auditRows(t, 'webhook.replayed', rejectedId);
    assert.equal(audit.length, 1);
    assert.equal(audit[0]!.payload.replayLogEntryId, res.body.id);
  });

  it('200 duplicate: replaying the same entry again does not count it twice', async () => {
    const res = await api.post(`/api/v1/webhook-log/${rejectedId}/replay`);
    assert.equal(res.status, 200, JSON.stringify(res.body));
    assert.equal(res.body.status, 'duplicate');
    assert.equal(res.body.replayOf, rejectedId);
    assert.equal((await usageRows(t, ws.workspaceId, 'evt_replay_1')).length, 1);
  });

  it('409 CONFLICT for an entry that failed signature verification (replay would skip it)', async () => {
    const res = await api.post(`/api/v1/webhook-log/${failedId}/replay`);
    assert.equal(res.status, 409, JSON.stringify(res.body));
    assert.equal(res.body.errors[0].code, 'CONFLICT');
  });

  it('404 for an unknown log entry', async () => {
    const res = await api.post('/api/v1/webhook-log/whl_00000000000000000000000000/replay');
    assert.equal(res.status, 404, JSON.stringify(res.body));
    assert.equal(res.body.errors[0].code, 'NOT_FOUND');
  });
});

// ---------------------------------------------------------------------------------------------

describe('development bypass (WEBHOOK_VERIFICATION_DISABLED)', () => {
  /** An app whose pino output is kept, to read the startup warnings. */
  async function appWithLog(config: Record<string, unknown>) {
    const lines: LogLine[] = [];
    const stream = new Writable({
      write(chunk, _enc, done) {
        for (const line of String(chunk).split('\n')) if (line.trim() !== '') lines.push(JSON.parse(line));
        done();
      },
    });
    const app = await createTestApp({ config: { ...NO_RATE_LIMIT, ...config }, log: pino({ level: 'info' }, stream) });
    const tenant = await app.seed.workspace();
    const client = app.seed.client(tenant.test.secretKey);
    await createMetric(client, 'bypass_units');
    await app.seed.customer(tenant.test, { externalId: 'acme-bypass' });
    const source = await createSource(client, { provider: 'custom', displayName: 'Bypass', metricName: 'bypass_units', signingSecret: 'bypass-secret' });
    return { app, client, source, lines, tenant };
  }
  const unsigned = (id: string): Outgoing => ({
    body: JSON.stringify({ id, type: 'job.completed', tenant_id: 'acme-bypass', quantity: 2 }),
    headers: { 'content-type': 'application/json' },
  });
  type LogLine = { level: number; msg: string; profile?: string };
  const warnings = (lines: LogLine[]) => lines.filter((l) => l.level === 40 && /WEBHOOK_VERIFICATION_DISABLED/.test(l.msg));

  it('development profile with the flag: an unsigned request is accepted and logged with verification skipped', async () => {
    const x = await appWithLog({ profile: 'development', webhookVerificationDisabled: true });
    try {
      const res = await post(x.app, x.source.id, unsigned('evt_dev_1'));
      assert.equal(res.status, 200, JSON.stringify(res.body));
      assert.equal(res.body.status, 'accepted');
      assert.equal((await usageRows(x.app, x.tenant.workspaceId, 'evt_dev_1')).length, 1);
      const entry = await ok(x.client.get(`/api/v1/webhook-log/${res.logId}`));
      assert.equal(entry.verification, 'skipped');
      assert.equal(entry.status, 'accepted');
      const w = warnings(x.lines);
      assert.equal(w.length, 1);
      assert.match(w[0]!.msg, /NOT checked/);
    } finally {
      await x.app.close();
    }
  });

  for (const profile of ['production', 'test'] as const) {
    it(`${profile} profile with the flag: an unsigned request gets 401, and a startup warning says the flag is ignored`, async () => {
      const x = await appWithLog({ profile, webhookVerificationDisabled: true });
      try {
        const w = warnings(x.lines);
        assert.equal(w.length, 1, JSON.stringify(x.lines));
        assert.match(w[0]!.msg, /ignored outside the development profile/);
        assert.equal(w[0]!.profile, profile);
        const res = await post(x.app, x.source.id, unsigned(`evt_${profile}_1`));
        assertEnvelope(res, 401, 'WEBHOOK_SIGNATURE_INVALID');
        const entry = await ok(x.client.get(`/api/v1/webhook-log/${res.logId}`));
        assert.equal(entry.verification, 'failed');
        assert.equal(entry.reasonCode, 'missing_signature');
        assert.deepEqual(await usageRows(x.app, x.tenant.workspaceId, `evt_${profile}_1`), []);
      } finally {
        await x.app.close();
      }
    });
  }

  it('development profile without the flag: signatures are checked (401), and nothing is warned', async () => {
    const x = await appWithLog({ profile: 'development', webhookVerificationDisabled: false });
    try {
      assertEnvelope(await post(x.app, x.source.id, unsigned('evt_dev_2')), 401, 'WEBHOOK_SIGNATURE_INVALID');
      assert.deepEqual(warnings(x.lines), []);
    } finally {
      await x.app.close();
    }
  });
});

// ---------------------------------------------------------------------------------------------

describe('tenant isolation: the source decides the workspace and environment', () => {
  const SECRET = 'isolation-secret';
  let testSource: any;
  let liveSource: any;
  let live: Client;
  let testCustomer: string;
  let liveCustomer: string;
  let testEntry: string;
  let other: TenantHandle;

  before(async () => {
    live = t.seed.client(ws.live.secretKey);
    await createMetric(api, 'isolated_units');
    await createMetric(live, 'isolated_units');
    testCustomer = (await t.seed.customer(ws.test, { externalId: 'acme-iso' })).id;
    liveCustomer = (await t.seed.customer(ws.live, { externalId: 'acme-iso' })).id;
    testSource = await createSource(api, { provider: 'custom', displayName: 'Test source', metricName: 'isolated_units', signingSecret: SECRET });
    liveSource = await createSource(live, { provider: 'custom', displayName: 'Live source', metricName: 'isolated_units', signingSecret: SECRET });
    other = await t.seed.workspace('Other workspace');
  });

  const send = (sourceId: string, id: string) =>
    post(t, sourceId, customSigned(SECRET, JSON.stringify({ id, type: 'job.completed', tenant_id: 'acme-iso', quantity: 3 })));

  it("a live source's usage lands in live, for the live customer; a test source's in test", async () => {
    assert.equal(liveSource.environment, 'live');
    const l = await send(liveSource.id, 'evt_iso_live');
    assert.equal(l.status, 200, JSON.stringify(l.body));
    const tt = await send(testSource.id, 'evt_iso_test');
    assert.equal(tt.status, 200, JSON.stringify(tt.body));
    assert.deepEqual(
      (await usageRows(t, ws.workspaceId, 'evt_iso_live')).map((r) => [r.environment, r.customerId]),
      [['live', liveCustomer]],
    );
    assert.deepEqual(
      (await usageRows(t, ws.workspaceId, 'evt_iso_test')).map((r) => [r.environment, r.customerId]),
      [['test', testCustomer]],
    );
    const liveUsage = await ok(live.get('/api/v1/usage?metricName=isolated_units'));
    assert.deepEqual(
      liveUsage.data.map((r: any) => [r.customerId, r.sum, r.count]),
      [[liveCustomer, '3', 1]],
    );
    testEntry = tt.logId;
  });

  it("a live key cannot see a test source's log entry (404) nor list it", async () => {
    const res = await live.get(`/api/v1/webhook-log/${testEntry}`);
    assert.equal(res.status, 404, JSON.stringify(res.body));
    const list = await ok(live.get(`/api/v1/webhook-log?sourceId=${testSource.id}`));
    assert.deepEqual(list.data, []);
    assert.equal((await api.get(`/api/v1/webhook-log/${testEntry}`)).status, 200);
  });

  it('another workspace can neither read nor replay the entry (404)', async () => {
    const stranger = t.seed.client(other.test.secretKey);
    const read = await stranger.get(`/api/v1/webhook-log/${testEntry}`);
    assert.equal(read.status, 404, JSON.stringify(read.body));
    const replay = await stranger.post(`/api/v1/webhook-log/${testEntry}/replay`);
    assert.equal(replay.status, 404, JSON.stringify(replay.body));
    assert.equal((await usageRows(t, ws.workspaceId, 'evt_iso_test')).length, 1);
    assert.equal((await usageRows(t, other.workspaceId)).length, 0);
  });
});

// ---------------------------------------------------------------------------------------------

describe('404 for a source that does not exist', () => {
  const SECRET = 'gone-secret';

  it('404 NOT_FOUND for an unknown source id; nothing is logged', async () => {
    const before = (await t.deps.db.selectFrom('webhookLog').select('id').execute()).length;
    const res = await post(t, 'wsrc_00000000000000000000000000', customSigned(SECRET, '{"id":"x"}'));
    assertEnvelope(res, 404, 'NOT_FOUND', 'sourceId');
    assert.equal((await t.deps.db.selectFrom('webhookLog').select('id').execute()).length, before);
  });

  it('404 for a deleted source, even one that just received (and cached) a delivery', async () => {
    await createMetric(api, 'gone_units');
    await t.seed.customer(ws.test, { externalId: 'acme-gone' });
    const source = await createSource(api, { provider: 'custom', displayName: 'Soon gone', metricName: 'gone_units', signingSecret: SECRET });
    const body = (id: string) => JSON.stringify({ id, type: 'job.completed', tenant_id: 'acme-gone', quantity: 1 });
    assert.equal((await post(t, source.id, customSigned(SECRET, body('evt_gone_1')))).status, 200);
    await ok(api.delete(`/api/v1/webhook-sources/${source.id}`));
    const res = await post(t, source.id, customSigned(SECRET, body('evt_gone_2')));
    assertEnvelope(res, 404, 'NOT_FOUND');
    assert.deepEqual(await usageRows(t, ws.workspaceId, 'evt_gone_2'), []);
  });
});

// ---------------------------------------------------------------------------------------------

describe('signing secrets at rest', () => {
  const SECRET = 'whsec_AtRest_9f8e7d6c5b4a3210';
  const ROTATED = 'whsec_Rotated_0a1b2c3d4e5f6789';
  let source: any;

  before(async () => {
    await createMetric(api, 'secret_units');
    source = await createSource(api, { provider: 'payment', displayName: 'Secret keeper', metricName: 'secret_units', signingSecret: SECRET });
  });

  const mentions = (value: unknown, secret: string) => JSON.stringify(value).includes(secret);

  it('never in an API response (create, get, list, update); only the hint, its last 4 characters', async () => {
    assert.equal(mentions(source, SECRET), false);
    assert.equal(source.hasSigningSecret, true);
    assert.equal(source.signingSecretHint, SECRET.slice(-4));
    const got = await ok(api.get(`/api/v1/webhook-sources/${source.id}`));
    assert.equal(mentions(got, SECRET), false);
    assert.equal(got.signingSecretHint, SECRET.slice(-4));
    const list = await ok(api.get('/api/v1/webhook-sources?limit=100'));
    assert.ok(list.data.some((s: any) => s.id === source.id));
    assert.equal(mentions(list, SECRET), false);
    const renamed = await ok(api.patch(`/api/v1/webhook-sources/${source.id}`, { displayName: 'Secret keeper (renamed)' }));
    assert.equal(mentions(renamed, SECRET), false);
    assert.equal(renamed.signingSecretHint, SECRET.slice(-4));
  });

  it('never in the webhook_sources row: sealed (ciphertext unlike the secret, key id set), and never in the audit trail', async () => {
    const row = await t.deps.db.selectFrom('webhookSources').selectAll().where('id', '=', source.id).executeTakeFirstOrThrow();
    assert.ok(row.secretCiphertext);
    assert.notEqual(row.secretCiphertext, SECRET);
    assert.equal(row.secretCiphertext.includes(SECRET), false);
    assert.equal(mentions(row, SECRET), false);
    assert.equal(mentions(row, Buffer.from(SECRET).toString('base64')), false);
    assert.equal(row.secretKeyId, 'test1');
    assert.equal(row.secretHint, SECRET.slice(-4));
    const audits = await t.deps.db.selectFrom('auditEvents').selectAll().where('targetId', '=', source.id).execute();
    assert.ok(audits.length >= 1);
    assert.equal(mentions(audits, SECRET), false);
  });

  it('a rotated secret: the response shows only the new hint; the row holds a new ciphertext without either secret', async () => {
    const before = await t.deps.db.selectFrom('webhookSources').selectAll().where('id', '=', source.id).executeTakeFirstOrThrow();
    const rotated = await ok(api.patch(`/api/v1/webhook-sources/${source.id}`, { signingSecret: ROTATED }));
    assert.equal(mentions(rotated, ROTATED), false);
    assert.equal(mentions(rotated, SECRET), false);
    assert.equal(rotated.signingSecretHint, ROTATED.slice(-4));
    const row = await t.deps.db.selectFrom('webhookSources').selectAll().where('id', '=', source.id).executeTakeFirstOrThrow();
    assert.notEqual(row.secretCiphertext, before.secretCiphertext);
    assert.equal(mentions(row, ROTATED), false);
    assert.equal(mentions(row, SECRET), false);
    assert.equal(row.secretKeyId, 'test1');
  });
});

// ---------------------------------------------------------------------------------------------

describe("display names: the source's displayName on its log entries and its webhook.rejected events", () => {
  const SECRET = 'named-secret';
  let source: any;
  const send = (id: string, tenant: string, secret = SECRET) =>
    post(t, source.id, customSigned(secret, JSON.stringify({ id, type: 'job.completed', tenant_id: tenant, quantity: 2 })));
  /** The source's webhook.rejected events through the audit API, oldest first. */
  const rejections = async (query = '') =>
    ((await ok(api.get(`/v1/events?type=webhook.rejected&targetId=${source.id}&limit=100${query}`))).data as any[]).reverse();

  before(async () => {
    await createMetric(api, 'named_units');
    await t.seed.customer(ws.test, { externalId: 'acme-named' });
    source = await createSource(api, { provider: 'custom', displayName: 'Ledger sync', metricName: 'named_units', signingSecret: SECRET });
  });

  it('200 every entry read through the API carries sourceDisplayName beside sourceId: the list and the entry', async () => {
    const accepted = await send('evt_named_1', 'acme-named');
    assert.equal(accepted.status, 200, JSON.stringify(accepted.body));
    const refused = await send('evt_named_2', 'acme-named', 'not-the-secret');
    assertEnvelope(refused, 401, 'WEBHOOK_SIGNATURE_INVALID');
    const list = await ok(api.get(`/api/v1/webhook-log?sourceId=${source.id}`));
    assert.deepEqual(
      list.data.map((e: any) => [e.id, e.sourceId, e.sourceDisplayName]),
      [
        [refused.logId, source.id, 'Ledger sync'],
        [accepted.logId, source.id, 'Ledger sync'],
      ],
    );
    const entry = await logEntry(accepted.logId);
    assert.equal(entry.sourceDisplayName, 'Ledger sync');
    assert.deepEqual(Object.keys(entry).slice(3, 5), ['sourceId', 'sourceDisplayName'], 'the name sits beside the id');
  });

  it('200 webhook.rejected carries sourceDisplayName in its payload (a bad signature and an unknown customer), and q finds it by the name', async () => {
    const badSignature = await send('evt_named_3', 'acme-named', 'not-the-secret');
    const unknownCustomer = await send('evt_named_4', 'nobody-here');
    assertEnvelope(unknownCustomer, 422, 'UNKNOWN_CUSTOMER');
    const events = await rejections();
    for (const logId of [badSignature.logId, unknownCustomer.logId]) {
      const e = events.find((x) => x.payload.logEntryId === logId);
      assert.ok(e, `a webhook.rejected event for ${logId}`);
      assert.equal(e.targetType, 'webhook_source');
      assert.equal(e.targetId, source.id);
      assert.equal(e.payload.sourceDisplayName, 'Ledger sync');
    }
    const found = await rejections('&q=ledger');
    assert.ok(
      found.some((e) => e.payload.logEntryId === unknownCustomer.logId),
      'the full-text search matches payload values, so the name finds the event',
    );
  });

  it('the name as it was: after a rename, earlier entries and events keep the old name; later ones, and a replay, carry the new one', async () => {
    const before = await send('evt_named_5', 'acme-late-named');
    assertEnvelope(before, 422, 'UNKNOWN_CUSTOMER');
    await ok(api.patch(`/api/v1/webhook-sources/${source.id}`, { displayName: 'Ledger sync (EU)' }));
    const after = await send('evt_named_6', 'acme-late-named');
    assertEnvelope(after, 422, 'UNKNOWN_CUSTOMER');
    assert.equal((await logEntry(before.logId)).sourceDisplayName, 'Ledger sync');
    assert.equal((await logEntry(after.logId)).sourceDisplayName, 'Ledger sync (EU)');
    const events = await rejections();
    const nameOf = (logId: string) => events.find((e) => e.payload.logEntryId === logId)?.payload.sourceDisplayName;
    assert.deepEqual([nameOf(before.logId), nameOf(after.logId)], ['Ledger sync', 'Ledger sync (EU)']);
    // A replay is a new request to the source as it is now.
    await t.seed.customer(ws.test, { externalId: 'acme-late-named' });
    const replay = await ok(api.post(`/api/v1/webhook-log/${before.logId}/replay`));
    assert.equal(replay.status, 'accepted');
    assert.equal(replay.sourceDisplayName, 'Ledger sync (EU)');
  });

  it('a deleted source: its entries keep their name', async () => {
    const gone = await createSource(api, { provider: 'custom', displayName: 'Short-lived', metricName: 'named_units', signingSecret: SECRET });
    const res = await post(
      t,
      gone.id,
      customSigned(SECRET, JSON.stringify({ id: 'evt_named_7', type: 'job.completed', tenant_id: 'acme-named', quantity: 1 })),
    );
    assert.equal(res.status, 200, JSON.stringify(res.body));
    await ok(api.delete(`/api/v1/webhook-sources/${gone.id}`));
    assert.equal((await logEntry(res.logId)).sourceDisplayName, 'Short-lived');
    const list = await ok(api.get(`/api/v1/webhook-log?sourceId=${gone.id}`));
    assert.deepEqual(
      list.data.map((e: any) => e.sourceDisplayName),
      ['Short-lived'],
    );
  });
});
