/**
 * The console's Webhooks and Outbound screens in a real headless Chromium against a real listening
 * server (helpers in helpers/console-browser.ts): a webhook signed as its source requires, posted
 * to the public receiving address, shows in the source's ingestion log, its payload opens and its
 * replay says what came of it; an endpoint made in the page gets its secret once, a test event is
 * delivered to a receiver on 127.0.0.1, the delivery's replay is sent with the same webhook-id,
 * and the secret is rotated; a viewer reads both screens and the server refuses a change. The
 * sender is driven with drain(): nothing waits on the wall clock. Without Chromium the file is
 * skipped, and says so.
 */
import { after, afterEach, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Page } from 'playwright-core';
import { createOperator } from '../src/modules/operators/create-operator.js';
import { signatureSchemeOf } from '../src/modules/plugs/provider-templates.js';
import { signWebhook } from '../src/modules/plugs/sign-webhook.js';
import { checkScreen, consoleBrowserSkip, startConsoleBrowser, type ConsoleBrowser } from './helpers/console-browser.js';

const skip = consoleBrowserSkip;
if (skip) console.log(`console-hooks.browser.test.ts: SKIPPED: ${skip}`);
const opts = { skip, timeout: 90_000 };

const PASSWORD = 'correct horse battery staple';
const SECRET = 'plug-secret-for-the-browser-test';

const heading = (page: Page, name: string | RegExp) => page.getByRole('heading', { level: 1, name }).waitFor();

async function signIn(page: Page, email: string): Promise<void> {
  await heading(page, 'Sign in to the Tollgate console');
  await page.getByLabel('E-mail').fill(email);
  await page.getByLabel('Password').fill(PASSWORD);
  await page.getByRole('button', { name: 'Sign in' }).click();
}

/** A receiver on 127.0.0.1 that answers 200 with a small JSON body and keeps each request's webhook-id. */
async function startReceiver(): Promise<{ server: Server; url: string; ids: string[] }> {
  const ids: string[] = [];
  const server = createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      ids.push(String(req.headers['webhook-id']));
      res.writeHead(200, { 'content-type': 'application/json' }).end('{"received":true}');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { server, url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/hooks`, ids };
}

describe('the Webhooks and Outbound screens in Chromium', () => {
  let b: ConsoleBrowser;
  let n = 0;
  const operator = async (role: 'admin' | 'viewer') => {
    const email = `hooks-${role}-${++n}@example.com`;
    await createOperator(
      b.t.deps,
      { workspaceId: b.t.demo!.workspaceId, email, name: `Hooks ${role}`, role, password: PASSWORD },
      { actor: { type: 'SYSTEM', id: 'test' }, correlationId: 'test', source: 'system' },
    );
    return email;
  };
  const admin = () => operator('admin');
  before(async () => {
    if (!skip) b = await startConsoleBrowser({ demo: true, webhooks: { sender: true } });
  });
  // A test's pages close when it ends (an open page keeps costing the browser CPU).
  afterEach(async () => b?.closePages());
  after(async () => b?.close());

  it('an admin adds a source, sees a signed webhook it received in its log, opens the payload and replays it', opts, async () => {
    const p = await b.open('/console/webhooks');
    await signIn(p.page, await admin());
    await heading(p.page, 'Webhooks');
    // The demo workspace's sources are listed.
    await checkScreen(p, b.origin, 'webhooks', (page) => page.getByRole('link', { name: 'Custom HMAC sender' }).waitFor());

    // A source made in the page; a wrong metric is refused next to its field first.
    await p.page.getByLabel('Provider').selectOption('custom');
    await p.page.getByLabel('Name').fill('Browser test plug');
    await p.page.getByLabel('Metric').fill('no_such_metric');
    await p.page.getByLabel('Signing secret').fill(SECRET);
    await p.page.getByRole('button', { name: 'Add source' }).click();
    await p.page.locator('#metricName-error').waitFor();
    assert.equal(await p.page.getByLabel('Metric').getAttribute('aria-invalid'), 'true');
    await p.page.getByLabel('Metric').fill('tokens');
    await p.page.getByLabel('Signing secret').fill(SECRET);
    await p.page.getByRole('button', { name: 'Add source' }).click();
    await heading(p.page, 'Browser test plug');
    const sourceId = decodeURIComponent(new URL(p.page.url()).pathname.split('/').pop()!);
    assert.match(sourceId, /^wsrc_/);
    await p.page.getByText('Nothing received yet.').waitFor();

    // A webhook to the public address, signed as a custom source requires; long enough to scroll.
    const body = JSON.stringify({
      id: 'evt_browser_1',
      type: 'tokens.used',
      quantity: 5,
      tenant_id: b.t.demo!.environments.test.customerExternalId,
      timestamp: new Date(b.t.clock.now()).toISOString(),
      note: '<b>not markup</b>',
      lines: Array.from({ length: 60 }, (_, i) => `line ${i} ${'x'.repeat(200)}`),
    });
    const signed = signWebhook(signatureSchemeOf('custom', {}), SECRET, body, { nowMs: b.t.clock.now() });
    const res = await fetch(`${b.origin}/v1/ingest/webhook/${sourceId}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...signed.headers },
      body,
    });
    assert.equal(res.status, 200, await res.clone().text());
    assert.equal(((await res.json()) as { status: string }).status, 'accepted');

    await p.page.reload();
    const received = p.page.getByRole('link', { name: '2026-01-15 12:00 UTC' });
    await checkScreen(p, b.origin, 'webhook-source', () => received.first().waitFor());
    assert.equal(await p.page.getByRole('cell', { name: 'accepted' }).count(), 1);

    await received.first().click();
    await heading(p.page, 'Received webhook');
    // The entry names its source as it was called when the webhook arrived.
    await p.page.locator('dd', { hasText: 'Browser test plug' }).waitFor();
    const payload = p.page.getByRole('region', { name: 'Payload' });
    await payload.waitFor();
    const text = await payload.innerText();
    assert.ok(text.includes('"tenant_id": "acme"'), 'pretty-printed JSON');
    assert.ok(text.includes('<b>not markup</b>'), 'markup in a payload stays text');
    assert.equal(await payload.locator('b').count(), 0, 'and is never made an element');
    // The big payload scrolls inside its box; the signature header is shown redacted.
    const scrolls = `(() => { const el = document.querySelector('pre.payload'); return el.scrollHeight > el.clientHeight && el.scrollWidth > el.clientWidth; })()`;
    assert.ok(await p.page.evaluate<boolean>(scrolls), 'the payload box scrolls, down and across');
    await p.page.getByText('[redacted]').waitFor();
    await checkScreen(p, b.origin, 'webhook-entry', () => payload.waitFor());

    await p.page.getByRole('button', { name: 'Replay' }).click();
    const outcome = p.page.getByRole('status').filter({ hasText: 'Replayed.' });
    await outcome.getByText(/Duplicate: its event was stored before/).waitFor();
    await checkScreen(p, b.origin, 'webhook-entry-replayed', () => outcome.waitFor());

    // The replay's own entry names the one it replays.
    await p.page.getByRole('link', { name: "Open the replay's entry" }).click();
    await p.page.getByText(/^Duplicate:/).waitFor();
    const log = await b.t.app.inject({
      method: 'GET',
      url: `/api/v1/webhook-log?sourceId=${sourceId}`,
      headers: { authorization: `Bearer ${b.t.demo!.environments.test.secretKey}` },
    });
    const entries = log.json<{ data: Array<{ id: string; status: string; replayOf: string | null }> }>().data;
    assert.deepEqual(
      entries.map((e) => e.status),
      ['duplicate', 'accepted'],
    );
    assert.equal(entries[0]!.replayOf, entries[1]!.id);
  });

  it(
    'an admin adds an endpoint (secret shown once, with Copy), sees a delivery in its log, its request and answer, replays it, rotates its secret, disables and deletes it',
    opts,
    async () => {
      const receiver = await startReceiver();
      try {
        const p = await b.open('/console/outbound');
        await p.page.context().grantPermissions(['clipboard-read', 'clipboard-write'], { origin: b.origin });
        await signIn(p.page, await admin());
        await heading(p.page, 'Outbound webhooks');
        await checkScreen(p, b.origin, 'outbound', (page) => page.getByText('No endpoints in this environment yet.').waitFor());

        await p.page.getByLabel('URL').fill(receiver.url);
        await p.page.getByLabel('Description (optional)').fill('Browser receiver');
        await p.page.getByRole('button', { name: 'Add endpoint' }).click();
        const secret = p.page.locator('code.secret');
        await secret.waitFor();
        const shown = await secret.innerText();
        assert.match(shown, /^whsec_/);
        await p.page.getByRole('button', { name: 'Copy secret' }).click();
        await p.page.getByText('Copied to the clipboard.').waitFor();
        assert.equal(await p.page.evaluate<string>('navigator.clipboard.readText()'), shown);
        await checkScreen(p, b.origin, 'outbound-created', (page) => page.getByRole('link', { name: receiver.url }).waitFor());

        await p.page.getByRole('link', { name: receiver.url }).click();
        await heading(p.page, 'Webhook endpoint');
        await p.page.getByRole('button', { name: 'Send a test event' }).click();
        await p.page.getByText('A test event is queued').waitFor();
        await b.t.sender!.drain();
        await p.page.getByRole('button', { name: 'Refresh the log' }).click();
        const delivered = p.page.getByRole('cell', { name: 'succeeded after 1 attempt' });
        await checkScreen(p, b.origin, 'outbound-endpoint', () => delivered.waitFor());

        await p.page.getByRole('link', { name: 'webhook.test' }).click();
        await heading(p.page, 'Delivery of webhook.test');
        await p.page.getByRole('heading', { level: 3, name: 'Attempt 1 (test): succeeded' }).waitFor();
        await p.page.getByText(/^HTTP 200 in \d+ ms$/).waitFor();
        const answer = await p.page.getByRole('region', { name: 'Response to attempt 1' }).innerText();
        assert.ok(answer.includes('"received": true'), answer);
        const request = await p.page.getByRole('region', { name: 'Request body' }).innerText();
        assert.ok(request.includes('"type": "webhook.test"'), request);
        await checkScreen(p, b.origin, 'outbound-delivery', (page) => page.getByRole('region', { name: 'Request body' }).waitFor());

        await p.page.getByRole('button', { name: 'Replay', exact: true }).click();
        await p.page.getByText(/^Replay queued: the delivery is pending/).waitFor();
        await b.t.sender!.drain();
        await p.page.getByRole('button', { name: 'Refresh', exact: true }).click();
        // A test message's attempts are all trigger test, its replays included.
        const replayed = p.page.getByRole('heading', { level: 3, name: 'Attempt 2 (test): succeeded' });
        await checkScreen(p, b.origin, 'outbound-delivery-replayed', () => replayed.waitFor());
        assert.equal(receiver.ids.length, 2, 'the receiver got the message twice');
        assert.equal(receiver.ids[0], receiver.ids[1], 'with the same webhook-id');

        await p.page.getByRole('link', { name: 'Back to the endpoint' }).click();
        await heading(p.page, 'Webhook endpoint');
        await p.page.getByRole('button', { name: 'Rotate secret' }).click();
        await p.page.getByRole('button', { name: 'Yes, rotate it' }).click();
        await p.page.getByText(/^The previous secret signs too until 2026-01-16 12:00 UTC\.$/).waitFor();
        const rotated = await p.page.locator('code.secret').innerText();
        assert.match(rotated, /^whsec_/);
        assert.notEqual(rotated, shown, 'a new secret');
        await p.page.getByRole('button', { name: 'Disable' }).click();
        await p.page.getByText('disabled (manual)').waitFor();
        assert.equal(await p.page.getByRole('button', { name: 'Send a test event' }).isDisabled(), true);
        await p.page.getByRole('button', { name: 'Delete endpoint' }).click();
        await p.page.getByRole('button', { name: 'Yes, delete it' }).click();
        await heading(p.page, 'Outbound webhooks');
        await p.page.getByText('No endpoints in this environment yet.').waitFor();
      } finally {
        await new Promise((resolve) => receiver.server.close(resolve));
      }
    },
  );

  it('a viewer reads sources and endpoints, has no form to add one, and a change is refused by the server in the page', opts, async () => {
    const p = await b.open('/console/webhooks');
    await signIn(p.page, await operator('viewer'));
    await heading(p.page, 'Webhooks');
    await p.page.getByText('Adding a source takes an admin.').waitFor();
    assert.equal(await p.page.getByRole('button', { name: 'Add source' }).count(), 0);
    await p.page.getByRole('link', { name: 'Custom HMAC sender' }).click();
    await heading(p.page, 'Custom HMAC sender');
    await p.page.getByLabel('Name').fill('Renamed by a viewer');
    await p.page.getByRole('button', { name: 'Save settings' }).click();
    await p.page.getByRole('alert').getByText('Your role is viewer, which may only read; PATCH needs an admin of this workspace.').waitFor();
    await p.page.getByRole('link', { name: 'Outbound' }).click();
    await heading(p.page, 'Outbound webhooks');
    await p.page.getByText('Adding an endpoint takes an admin.').waitFor();
    assert.equal(await p.page.getByRole('button', { name: 'Add endpoint' }).count(), 0);
  });
});
