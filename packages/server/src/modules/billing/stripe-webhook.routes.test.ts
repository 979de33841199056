import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import Stripe from 'stripe';
import { createTestApp, type TestApp } from '../../../test/helpers/test-app.js';
import type { TenantHandle } from '../../../test/helpers/seed.js';

/** Stripe's webhooks for a connection (issue 39): verified on the raw bytes, kept once, never lost. */

let t: TestApp;
let ws: TenantHandle;
let connectionId: string;
const secret = 'whsec_AbCdEfGhIjKlMnOpQrStUv3333';

before(async () => {
  t = await createTestApp();
  ws = await t.seed.workspace();
  const c = await t.seed
    .client(ws.test.secretKey)
    .request('PUT', '/api/v1/payment_providers/stripe', { secretKey: 'sk_test_51AbCdEfGhIjKlMnOpQrStUv1111', webhookSecret: secret });
  assert.equal(c.status, 201, JSON.stringify(c.body));
  connectionId = c.body.id;
});
after(() => t.close());

const event = (id: string, type = 'payment_intent.succeeded') =>
  JSON.stringify({ id, object: 'event', type, data: { object: { id: 'pi_1', object: 'payment_intent' } } });

/** Signed as Stripe signs, with the stripe package's own helper, at `at` (default: the server's frozen now). */
function send(body: string, opts: { secret?: string; at?: number; header?: string | null; id?: string } = {}) {
  const header =
    opts.header === undefined
      ? Stripe.webhooks.generateTestHeaderString({ payload: body, secret: opts.secret ?? secret, timestamp: Math.floor((opts.at ?? t.clock.now()) / 1000) })
      : opts.header;
  return t.app.inject({
    method: 'POST',
    url: `/v1/payments/stripe/webhooks/${opts.id ?? connectionId}`,
    headers: { 'content-type': 'application/json', ...(header === null ? {} : { 'stripe-signature': header }) },
    payload: body,
  });
}

const stored = () => t.deps.db.selectFrom('paymentProviderEvents').selectAll().where('connectionId', '=', connectionId).orderBy('providerEventId').execute();

describe('POST /v1/payments/stripe/webhooks/{id}', () => {
  it('200 stores a verified event as received, in its workspace and environment, applied (here: not ours, so nothing to do); a redelivery is acknowledged and not stored twice', async () => {
    const body = event('evt_1Once');
    const first = await send(body);
    assert.equal(first.statusCode, 200, first.body);
    assert.deepEqual(JSON.parse(first.body), { received: true, duplicate: false });
    const again = await send(body);
    assert.deepEqual(JSON.parse(again.body), { received: true, duplicate: true });
    const rows = await stored();
    assert.equal(rows.length, 1);
    assert.deepEqual(
      [rows[0]!.providerEventId, rows[0]!.type, rows[0]!.payload, rows[0]!.workspaceId, rows[0]!.environment, rows[0]!.appliedAt],
      // A PaymentIntent without our metadata belongs to another system on the same Stripe account.
      ['evt_1Once', 'payment_intent.succeeded', body, ws.workspaceId, 'test', t.clock.now()],
    );
  });

  it('401 and nothing stored: no signature, another secret, a signature older than 5 minutes, a tampered body; each audited with its reason', async () => {
    const before = (await stored()).length;
    const body = event('evt_2Refused');
    const cases: Array<[string, Awaited<ReturnType<typeof send>>, string]> = [
      ['no header', await send(body, { header: null }), 'missing_signature'],
      ['another secret', await send(body, { secret: 'whsec_SomeoneElsesSecret000000' }), 'signature_mismatch'],
      ['too old', await send(body, { at: t.clock.now() - 301_000 }), 'timestamp_outside_tolerance'],
      [
        'tampered',
        await send(event('evt_2Tampered'), {
          header: Stripe.webhooks.generateTestHeaderString({ payload: body, secret, timestamp: Math.floor(t.clock.now() / 1000) }),
        }),
        'signature_mismatch',
      ],
    ];
    for (const [what, res] of cases) {
      assert.equal(res.statusCode, 401, `${what}: ${res.body}`);
      assert.equal(JSON.parse(res.body).errors[0].code, 'UNAUTHENTICATED');
    }
    assert.equal((await stored()).length, before);
    const audits = await t.deps.db
      .selectFrom('auditEvents')
      .selectAll()
      .where('eventType', '=', 'payment_provider.webhook_rejected')
      .where('targetId', '=', connectionId)
      .orderBy('seq')
      .execute();
    assert.deepEqual(
      audits.map((a) => (JSON.parse(a.payload) as { reason: string }).reason),
      cases.map((c) => c[2]),
    );
    assert.ok(audits.every((a) => a.workspaceId === ws.workspaceId && a.severity === 'WARN'));
  });

  it('404 for an unknown connection; 401 for a connection without a signing secret; 400 naming the field for a signed body that is not an event', async () => {
    assert.equal((await send(event('evt_3Lost'), { id: 'pp_unknown' })).statusCode, 404);
    const w = await t.seed.workspace();
    const bare = await t.seed
      .client(w.test.secretKey)
      .request('PUT', '/api/v1/payment_providers/stripe', { secretKey: 'sk_test_51AbCdEfGhIjKlMnOpQrStUv1111' });
    const noSecret = await send(event('evt_3NoSecret'), { id: bare.body.id });
    assert.equal(noSecret.statusCode, 401);
    assert.match(JSON.parse(noSecret.body).errors[0].message, /No signing secret/);
    for (const [body, field] of [
      [JSON.stringify({ type: 'payment_intent.succeeded' }), 'body.id'],
      [JSON.stringify({ id: 'evt_3NoType' }), 'body.type'],
    ] as const) {
      const res = await send(body);
      assert.equal(res.statusCode, 400, res.body);
      assert.equal(JSON.parse(res.body).errors[0].field, field);
    }
    const notJson = await send('not json');
    assert.equal(notJson.statusCode, 400);
    assert.equal(JSON.parse(notJson.body).errors[0].code, 'INVALID_JSON');
  });
});
