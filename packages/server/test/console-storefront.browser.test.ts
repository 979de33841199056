/**
 * The console's storefront editor and catalog preview for a pricing page a seller would publish,
 * in a real headless Chromium against a real listening server (helpers/console-browser.ts): an
 * admin gives the demo storefront's offerings a call to action and a highlight and the page a
 * theme, sees the API's refusals next to the fields they name, saves and publishes, and the
 * published storefront carries them; the rate plan preview words a unit with its metric's display
 * name and unit. Axe-clean at 1280 and 390 px. Without Chromium: skipped, saying so.
 */
import { after, afterEach, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import type { Page } from 'playwright-core';
import { createOperator } from '../src/modules/operators/create-operator.js';
import { checkScreen, consoleBrowserSkip, startConsoleBrowser, type ConsoleBrowser } from './helpers/console-browser.js';

const skip = consoleBrowserSkip;
if (skip) console.log(`console-storefront.browser.test.ts: SKIPPED: ${skip}`);
const opts = { skip, timeout: 120_000 };
const PASSWORD = 'correct horse battery staple';

async function signIn(page: Page, email: string): Promise<void> {
  await page.getByRole('heading', { level: 1, name: 'Sign in to the Tollgate console' }).waitFor();
  await page.getByLabel('E-mail').fill(email);
  await page.getByLabel('Password').fill(PASSWORD);
  await page.getByRole('button', { name: 'Sign in' }).click();
}

const group = (page: Page, name: string) => page.getByRole('group', { name, exact: true });
const preview = (page: Page) => page.getByTestId('plan-preview');

describe('the console storefront editor and catalog preview in Chromium', () => {
  let b: ConsoleBrowser;
  let n = 0;
  const admin = async () => {
    const email = `storefront-admin-${++n}@example.com`;
    await createOperator(
      b.t.deps,
      { workspaceId: b.t.demo!.workspaceId, email, name: 'admin', role: 'admin', password: PASSWORD },
      { actor: { type: 'SYSTEM', id: 'test' }, correlationId: 'test', source: 'system' },
    );
    return email;
  };
  const getStorefront = async (id: string) => {
    const res = await fetch(`${b.origin}/api/v1/storefronts/${id}`, { headers: { authorization: `Bearer ${b.t.demo!.environments.test.secretKey}` } });
    assert.equal(res.status, 200);
    return (await res.json()) as {
      draft: { offeringDisplay: Array<{ offeringId: string }> } & Record<string, unknown>;
      published: Record<string, unknown> | null;
      hasUnpublishedChanges: boolean;
    };
  };
  before(async () => {
    if (!skip) b = await startConsoleBrowser({ demo: true });
  });
  // A test's pages close when it ends (an open page keeps costing the browser CPU).
  afterEach(async () => b?.closePages());
  after(async () => b?.close());

  it('an admin sets a call to action, a highlight and a theme, sees the field-named errors, saves and publishes them', opts, async () => {
    const storefrontId = b.t.demo!.environments.test.storefrontId;
    const p = await b.open('/console/catalog/storefronts');
    const { page } = p;
    await signIn(page, await admin());
    await page.getByRole('heading', { level: 3, name: 'Storefront draft' }).waitFor();
    await page.getByLabel('Storefront', { exact: true }).selectOption({ label: 'Demo pricing' });

    // The stored storefront: published as is, so there is nothing to publish yet; its hosted page linked.
    const status = page.locator('.storefront-status');
    await status.getByText('Saved draft: Published as is.').waitFor();
    assert.equal(await status.getByRole('link').getAttribute('href'), `/pricing/${storefrontId}`);
    assert.equal(await page.getByRole('button', { name: 'Publish the saved draft' }).isDisabled(), true);

    // One fieldset per listed offering, in the storefront's order; the two Pro offerings (monthly
    // and yearly, paired by name on the page) told apart by their price.
    const offerings = page.getByRole('group', { name: 'How each offering shows' });
    assert.deepEqual(await offerings.locator('fieldset > legend').allInnerTexts(), ['Starter', 'Pro, $49.00/mo', 'Pro, $490.00/yr', 'Agents']);
    // The demo's own settings are in the form.
    assert.equal(await group(page, 'Starter').getByLabel('Button text').inputValue(), 'Start for free');
    const pro = group(page, 'Pro, $49.00/mo');
    await pro.getByLabel('Button text').fill('Start free trial');
    await pro.getByLabel('Button link').fill('not a url');
    await pro.getByLabel('Highlighted, with a "Most popular" badge').check();

    // The theme: a colour typed wrong, the other picked (the picker writes the code).
    const accent = group(page, 'Accent colour');
    const background = group(page, 'Background colour');
    await accent.getByLabel('Code').fill('red');
    await background.getByLabel('Pick').fill('#f5f3ff');
    assert.equal(await background.getByLabel('Code').inputValue(), '#f5f3ff');
    await page.getByLabel('Font family (optional)').fill('Inter');
    await page.getByLabel('Logo URL (optional)').fill('https://shop.example.com/logo.svg');

    // The API refuses both; each message shows under its field, which points at it.
    await page.getByRole('button', { name: 'Save draft' }).click();
    const proLink = pro.getByLabel('Button link');
    const linkError = page.locator(`[id="offeringDisplay-${(await proLink.getAttribute('name'))!.split('.')[1]}-callToAction-url-error"]`);
    const colourError = page.locator('[id="theme-accentColor-error"]');
    await linkError.waitFor();
    await colourError.waitFor();
    assert.match(await linkError.innerText(), /url/i);
    assert.doesNotMatch(await linkError.innerText(), /type null/, 'the union noise is not shown');
    assert.match(await colourError.innerText(), /accentColor/);
    assert.equal(await proLink.getAttribute('aria-invalid'), 'true');
    assert.match((await proLink.getAttribute('aria-describedby')) ?? '', /callToAction-url-error/);
    assert.equal(await accent.getByLabel('Code').getAttribute('aria-invalid'), 'true');
    assert.match((await accent.getByLabel('Code').getAttribute('aria-describedby')) ?? '', /\btheme-accentColor-error\b/);
    assert.equal(await page.getByRole('alert').innerText(), '', 'every error is next to its field');
    await checkScreen(p, b.origin, 'catalog-storefront-errors', () => colourError.waitFor());

    // Fixed, saved: a draft with unpublished changes.
    await proLink.fill('https://shop.example.com/signup?plan=pro');
    await accent.getByLabel('Code').fill('#4F46E5');
    assert.equal(await accent.getByLabel('Pick').inputValue(), '#4f46e5');
    await page.getByRole('button', { name: 'Save draft' }).click();
    await page.getByRole('status').filter({ hasText: 'Draft of Demo pricing saved' }).waitFor();
    await status.getByText('Saved draft: Unpublished changes.').waitFor();
    assert.equal(await colourError.count(), 0);
    const saved = await getStorefront(storefrontId);
    const proId = (await proLink.getAttribute('name'))!.split('.')[1];
    assert.equal(saved.draft.offeringDisplay.length, 4, 'every demo offering keeps its entry');
    assert.deepEqual(
      saved.draft.offeringDisplay.find((d) => d.offeringId === proId),
      { offeringId: proId, highlighted: true, callToAction: { label: 'Start free trial', url: 'https://shop.example.com/signup?plan=pro' } },
    );
    assert.deepEqual(saved.draft.theme, {
      accentColor: '#4F46E5',
      backgroundColor: '#f5f3ff',
      fontFamily: 'Inter',
      logoUrl: 'https://shop.example.com/logo.svg',
    });
    await checkScreen(p, b.origin, 'catalog-storefront-editor', () => status.getByText('Saved draft: Unpublished changes.').waitFor());

    // Published from the editor: the published side carries the same settings.
    await page.getByRole('button', { name: 'Publish the saved draft' }).click();
    await page.getByRole('status').filter({ hasText: 'Demo pricing is published: Version 2' }).waitFor();
    await status.getByText('Saved draft: Published as is.').waitFor();
    const published = await getStorefront(storefrontId);
    assert.equal(published.hasUnpublishedChanges, false);
    assert.deepEqual(published.published?.offeringDisplay, saved.draft.offeringDisplay);
    assert.deepEqual(published.published?.theme, saved.draft.theme);
    const pageRes = await fetch(`${b.origin}/pricing/${storefrontId}`);
    assert.equal(pageRes.status, 200);
    const html = await pageRes.text();
    assert.ok(html.includes('href="https://shop.example.com/signup?plan=pro"'), 'the hosted page links the new button');
    assert.ok(html.includes('>Start free trial</a>'), 'with its text');

    // Taken back into the form from the server: what was saved is what the form shows.
    await page.reload();
    await page.getByRole('heading', { level: 3, name: 'Storefront draft' }).waitFor();
    await page.getByLabel('Storefront', { exact: true }).selectOption({ label: 'Demo pricing' });
    assert.equal(await group(page, 'Pro, $49.00/mo').getByLabel('Button text').inputValue(), 'Start free trial');
    assert.equal(await group(page, 'Pro, $49.00/mo').getByLabel('Highlighted, with a "Most popular" badge').isChecked(), true);
    assert.equal(await group(page, 'Starter').getByLabel('Highlighted, with a "Most popular" badge').isChecked(), false);
    assert.equal(await group(page, 'Accent colour').getByLabel('Code').inputValue(), '#4F46E5');
  });

  it("the catalog preview words a unit with its metric's display name and unit", opts, async () => {
    const p = await b.open('/console/catalog/rate-plans/new');
    const { page } = p;
    await signIn(page, await admin());
    await page.getByRole('heading', { level: 2, name: 'New rate plan' }).waitFor();
    await page.getByLabel('Name', { exact: true }).fill('Calls');
    // api_calls: display name "API calls", unit "call" (the demo's metric).
    await page.getByLabel('Metric of unit 1').selectOption('api_calls');
    await page.getByLabel('Price per unit').fill('0.002');
    await preview(page).getByText('$0.0020 / call', { exact: true }).waitFor();
    // The label once, as the pricing page writes it; the select already names the metric the same way.
    const line = preview(page).locator('.preview-unit > p').first();
    assert.equal(await line.innerText(), 'API calls: $0.0020 / call');
    assert.equal(await page.getByLabel('Metric of unit 1').locator('option:checked').innerText(), 'API calls');
    await page.getByLabel('Free units each period').fill('1000');
    await preview(page).getByText('$0.0020 / call after 1,000 free', { exact: true }).waitFor();

    // A graduated unit: the band table is headed with the unit, and says how it bills.
    await page.getByLabel('Pricing model of unit 1').selectOption('GRADUATED');
    await page.locator('[id="field-metrics-0-tiers-0-unitPrice"]').fill('0.002');
    const table = preview(page).getByRole('table', { name: 'API calls: price tiers' });
    await table.getByRole('cell', { name: 'All calls' }).waitFor();
    assert.equal(await table.getByRole('columnheader').first().innerText(), 'Calls');
    await preview(page).getByText('Each call is billed at the rate of the tier it falls in.').waitFor();
    await checkScreen(p, b.origin, 'catalog-rate-plan-metric-labels', () => table.getByRole('cell', { name: 'All calls' }).waitFor());
  });
});
