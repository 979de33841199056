/**
 * The console's catalog editor in a real headless Chromium against a real listening server
 * (helpers/console-browser.ts): an admin creates a metric, a rate plan whose preview (pricing's
 * display wording) follows the typing, an offering and a storefront, publishes it, and the hosted
 * pricing page shows the plan in the same words. The API's field errors show next to their
 * fields; every catalog view is axe-clean at 1280 and 390 px. Without Chromium: skipped, saying so.
 */
import { after, afterEach, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import type { Page } from 'playwright-core';
import { createOperator } from '../src/modules/operators/create-operator.js';
import { checkScreen, consoleBrowserSkip, startConsoleBrowser, type ConsoleBrowser } from './helpers/console-browser.js';

const skip = consoleBrowserSkip;
if (skip) console.log(`console-catalog.browser.test.ts: SKIPPED: ${skip}`);
const opts = { skip, timeout: 120_000 };
const PASSWORD = 'correct horse battery staple';

async function signIn(page: Page, email: string): Promise<void> {
  await page.getByRole('heading', { level: 1, name: 'Sign in to the Tollgate console' }).waitFor();
  await page.getByLabel('E-mail').fill(email);
  await page.getByLabel('Password').fill(PASSWORD);
  await page.getByRole('button', { name: 'Sign in' }).click();
}

const preview = (page: Page) => page.getByTestId('plan-preview');
const subnav = (page: Page, name: string) => page.getByRole('navigation', { name: 'Catalog' }).getByRole('link', { name });

describe('the console catalog in Chromium', () => {
  let b: ConsoleBrowser;
  let n = 0;
  const operator = async (role: 'admin' | 'viewer') => {
    const email = `catalog-${role}-${++n}@example.com`;
    await createOperator(
      b.t.deps,
      { workspaceId: b.t.demo!.workspaceId, email, name: role, role, password: PASSWORD },
      { actor: { type: 'SYSTEM', id: 'test' }, correlationId: 'test', source: 'system' },
    );
    return email;
  };
  before(async () => {
    if (!skip) b = await startConsoleBrowser({ demo: true });
  });
  // A test's pages close when it ends (an open page keeps costing the browser CPU).
  afterEach(async () => b?.closePages());
  after(async () => b?.close());

  it(
    'an admin creates a metric and a priced plan (the preview follows the typing), an offering and a storefront, publishes it, and the pricing page shows the plan',
    opts,
    async () => {
      const p = await b.open('/console/catalog');
      const { page } = p;
      await signIn(page, await operator('admin'));

      // Metrics: the demo's are listed; a name events could not send is refused next to its field.
      await page.getByRole('heading', { level: 2, name: 'Metrics' }).waitFor();
      await checkScreen(p, b.origin, 'catalog-metrics', (pg) => pg.getByRole('table', { name: 'Metrics, newest first' }).getByRole('row').nth(1).waitFor());
      await page.getByLabel('Name', { exact: true }).fill('search queries');
      await page.getByRole('button', { name: 'Create metric' }).click();
      const nameError = page.locator('#name-error');
      await nameError.waitFor();
      assert.equal(await page.getByLabel('Name', { exact: true }).getAttribute('aria-invalid'), 'true');
      assert.match((await page.getByLabel('Name', { exact: true }).getAttribute('aria-describedby')) ?? '', /\bname-error\b/);
      await checkScreen(p, b.origin, 'catalog-metrics-field-error', () => nameError.waitFor());
      await page.getByLabel('Name', { exact: true }).fill('search_queries');
      await page.getByLabel('Unit (optional)').fill('query');
      await page.getByRole('button', { name: 'Create metric' }).click();
      await page.getByRole('status').filter({ hasText: 'Metric search_queries created.' }).waitFor();
      await page.getByRole('cell', { name: 'search_queries' }).waitFor();

      // A rate plan: the preview is pricing's wording, updated with each keystroke.
      await subnav(page, 'Rate plans').click();
      await page.getByRole('cell', { name: 'Pro usage' }).first().waitFor();
      await checkScreen(p, b.origin, 'catalog-rate-plans', (pg) => pg.getByRole('cell', { name: 'Pro usage' }).first().waitFor());
      await page.getByRole('link', { name: 'New rate plan' }).click();
      await page.getByRole('heading', { level: 2, name: 'New rate plan' }).waitFor();
      // Metrics and periods in words: a metric's display name (else its name made readable), "Monthly".
      const metricOptions = page.getByLabel('Metric of unit 1').locator('option');
      await metricOptions.filter({ hasText: 'API calls' }).waitFor({ state: 'attached' });
      const offered = await metricOptions.allTextContents();
      assert.ok(offered.includes('API calls') && offered.includes('Search queries'), offered.join(', '));
      assert.deepEqual(
        offered.filter((o) => /_/.test(o)),
        [],
        'no metric offered by its raw name',
      );
      assert.deepEqual(await page.getByLabel('Billing period').locator('option').allTextContents(), ['Monthly', 'Quarterly', 'Annually', 'One-time']);
      assert.equal(await page.getByLabel('Billing period').inputValue(), 'MONTHLY');
      await page.getByLabel('Name', { exact: true }).fill('Console Pro');
      await preview(page).getByText('Console Pro').waitFor();
      await page.getByLabel('Metric of unit 1').selectOption('search_queries');
      await page.getByLabel('Price per unit').pressSequentially('0.002');
      await preview(page).getByText('$0.0020 / query', { exact: true }).waitFor();
      await page.getByLabel('Free units each period').pressSequentially('1000');
      await preview(page).getByText('$0.0020 / query after 1,000 free').waitFor();

      // A second unit, graduated: the preview shows its bands as the pricing page words them.
      await page.getByRole('button', { name: 'Add a billable unit' }).click();
      await page.getByLabel('Metric of unit 2').selectOption('api_calls');
      await page.getByLabel('Pricing model of unit 2').selectOption('GRADUATED');
      await page.locator('[id="field-metrics-1-tiers-0-tierEnd"]').fill('1000');
      await page.locator('[id="field-metrics-1-tiers-0-unitPrice"]').fill('0.01');
      await page.getByRole('button', { name: 'Add a band to unit 2' }).click();
      await page.locator('[id="field-metrics-1-tiers-1-unitPrice"]').fill('0.005');
      await preview(page).getByText('From $0.0050 / call').waitFor();
      // Each unit as the pricing page and the widget write it, its label once: not "API calls api_calls: …".
      assert.deepEqual(await preview(page).locator('.preview-unit > p:first-child').allInnerTexts(), [
        'Search queries: $0.0020 / query after 1,000 free',
        'API calls: From $0.0050 / call',
      ]);
      await preview(page).getByRole('cell', { name: 'First 1,000' }).waitFor();
      await preview(page).getByRole('cell', { name: 'Over 1,000' }).waitFor();
      await checkScreen(p, b.origin, 'catalog-rate-plan-new', (pg) => preview(pg).getByText('From $0.0050 / call').waitFor());

      // The API's error for a price with too many decimals lands under that price's input.
      await page.locator('[id="field-metrics-1-tiers-1-unitPrice"]').fill('0.0000000000001');
      await page.getByRole('button', { name: 'Create rate plan' }).click();
      const bandError = page.locator('[id="metrics-1-tiers-1-unitPrice-error"]');
      await bandError.waitFor();
      assert.match(await bandError.innerText(), /decimal places/);
      await page.locator('[id="field-metrics-1-tiers-1-unitPrice"]').fill('0.005');
      await page.getByRole('button', { name: 'Create rate plan' }).click();
      const created = page.getByRole('status').filter({ hasText: 'Rate plan Console Pro created' });
      await created.waitFor();
      const planId = /\((plan_[^)]+)\)/.exec(await created.innerText())?.[1];
      assert.ok(planId, 'the status names the new plan');
      // The address is the new plan's, not …/new: a reload opens the plan, not an empty form.
      assert.equal(new URL(page.url()).pathname, `/console/catalog/rate-plans/${planId}`);
      await page.reload();
      await page.getByRole('heading', { level: 2, name: 'Rate plan Console Pro' }).waitFor();
      await preview(page).getByText('$0.0020 / query after 1,000 free').waitFor();

      // Editing it again: the stored plan fills the form (currency fixed), and a save is a new version.
      await subnav(page, 'Rate plans').click();
      const listed = page.getByRole('row').filter({ has: page.getByRole('link', { name: 'Console Pro', exact: true }) });
      await listed.getByRole('cell', { name: 'Search queries (per unit), API calls (graduated tiers)', exact: true }).waitFor();
      await listed.getByRole('cell', { name: 'Monthly', exact: true }).waitFor();
      await page.getByRole('link', { name: 'Console Pro' }).click();
      await page.getByRole('heading', { level: 2, name: 'Rate plan Console Pro' }).waitFor();
      await preview(page).getByText('$0.0020 / query after 1,000 free').waitFor();
      assert.equal(await page.getByLabel('Currency').isDisabled(), true);
      await checkScreen(p, b.origin, 'catalog-rate-plan-edit', (pg) => preview(pg).getByText('From $0.0050 / call').waitFor());
      await page.getByLabel('Free units each period').first().fill('2000');
      await preview(page).getByText('$0.0020 / query after 2,000 free').waitFor();
      await page.getByRole('button', { name: 'Save rate plan' }).click();
      await page.getByRole('status').filter({ hasText: 'Rate plan Console Pro saved (version 2).' }).waitFor();

      // An offering with the plan (the product is the demo's).
      await subnav(page, 'Offerings').click();
      await page.getByRole('heading', { level: 3, name: 'Create or change an offering' }).waitFor();
      await page.getByLabel('Product').selectOption({ label: 'Demo Search API' });
      await page.getByLabel('Name', { exact: true }).fill('Console offering');
      await page.getByLabel('Entry price per period (optional)').fill('19');
      await page.getByRole('checkbox', { name: `Console Pro (${planId})` }).check();
      await page.getByRole('button', { name: 'Create offering' }).click();
      const offering = page.getByRole('status').filter({ hasText: 'Offering Console offering created' });
      await offering.waitFor();
      const offeringId = /\((off_[^)]+)\)/.exec(await offering.innerText())?.[1];
      assert.ok(offeringId);
      await page.getByRole('cell', { name: '$19.00/mo' }).first().waitFor();
      // The form now holds the stored offering: a change is a PATCH (product, currency and period fixed).
      assert.equal(await page.getByLabel('Offering', { exact: true }).inputValue(), offeringId);
      assert.equal(await page.getByLabel('Product').isDisabled(), true);
      await page.getByLabel('Trial days (optional)').fill('14');
      await page.getByRole('button', { name: 'Save offering' }).click();
      await page.getByRole('status').filter({ hasText: 'Offering Console offering saved' }).waitFor();
      await page.getByRole('row').filter({ hasText: offeringId }).getByRole('cell', { name: '14 days' }).waitFor();
      await checkScreen(p, b.origin, 'catalog-offerings', (pg) => pg.getByRole('cell', { name: '$19.00/mo' }).first().waitFor());

      // A storefront: draft, publish, and the public pricing page shows the plan in the preview's words.
      await subnav(page, 'Storefronts').click();
      await page.getByRole('heading', { level: 3, name: 'Storefront draft' }).waitFor();
      await page.getByLabel('Name', { exact: true }).fill('Console storefront');
      await page.getByRole('checkbox', { name: `Console offering (${offeringId})` }).check();
      await page.getByRole('button', { name: 'Create storefront' }).click();
      await page.getByRole('status').filter({ hasText: 'Draft of Console storefront saved' }).waitFor();
      const row = page.getByRole('row').filter({ hasText: 'Console storefront' });
      await row.getByRole('cell', { name: 'Not published' }).waitFor();
      await checkScreen(p, b.origin, 'catalog-storefronts', () => row.getByRole('cell', { name: 'Not published' }).waitFor());
      await page.getByRole('button', { name: 'Publish Console storefront' }).click();
      await page.getByRole('status').filter({ hasText: 'Console storefront is published: Version 1' }).waitFor();
      await row.getByRole('cell', { name: 'Published as is' }).waitFor();
      const pagePath = await row.getByRole('link').getAttribute('href');
      assert.match(pagePath ?? '', /^\/pricing\/sf_/);
      const html = await (await fetch(b.origin + pagePath!)).text();
      // The page words each unit with its metric's unit (search_queries: query; the demo's api_calls: call).
      for (const text of ['Console offering', '$19.00/mo', '14-day free trial', '$0.0020 / query after 2,000 free', 'From $0.0050 / call', 'First 1,000'])
        assert.ok(html.includes(text), `the pricing page shows ${text}`);
    },
  );

  it('each of the eight pricing models has its form, and the preview words it as the pricing page does', opts, async () => {
    const p = await b.open('/console/catalog/rate-plans/new');
    const { page } = p;
    await signIn(page, await operator('admin'));
    await page.getByRole('heading', { level: 2, name: 'New rate plan' }).waitFor();
    await page.getByLabel('Metric of unit 1').selectOption('api_calls');
    const field = (label: string) => page.getByLabel(label, { exact: true });
    // In order: what one model types stays in the draft for the next (the free units, the band).
    const models: Array<[string, Array<[string, string]>, string]> = [
      ['PER_UNIT', [['Price per unit', '0.002']], '$0.0020 / call'],
      ['FLAT_RATE', [['Fee per period', '49']], '$49.00/mo'],
      ['PERCENTAGE', [['Percent of transaction value', '2.9']], '2.9% of transaction value'],
      [
        'INCLUDED_QUOTA',
        [
          ['Overage price per unit (per block with a block size)', '5'],
          ['Free units each period', '10000'],
          ['Block size (optional)', '1000'],
        ],
        '$5.00 per 1,000 calls after 10,000 free',
      ],
      ['GRADUATED', [['Price per unit', '0.01']], 'From $0.0100 / call after 10,000 free'],
      ['VOLUME_TIERED', [], 'From $0.0100 / call after 10,000 free'],
      ['STAIRCASE', [['Fee for the band', '10']], 'From $10.00/mo'],
      ['OUTCOME_BASED', [['Price per unit', '0.05']], '$0.0500 / call after 10,000 free'],
    ];
    for (const [model, inputs, headline] of models) {
      await page.getByLabel('Pricing model of unit 1').selectOption(model);
      for (const [label, value] of inputs) await field(label).fill(value);
      await preview(page).getByText(headline, { exact: true }).waitFor();
      if (model === 'GRADUATED') await preview(page).getByRole('cell', { name: 'All calls' }).waitFor();
      if (model === 'VOLUME_TIERED') await preview(page).getByRole('cell', { name: 'Any quantity' }).waitFor();
    }
    // Fields of other models are not offered (the API would refuse them).
    assert.equal(await field('Block size (optional)').count(), 0);
    await page.getByRole('button', { name: 'Add a status weight to unit 1' }).click();
    await field('Status, e.g. ERROR').fill('ERROR');
    await field('Weight, 0 to 1').fill('0');
    await preview(page).getByText('ERROR: free').waitFor();
    await preview(page).getByText('Other statuses bill at full price').waitFor();
    await checkScreen(p, b.origin, 'catalog-rate-plan-outcome', (pg) => preview(pg).getByText('ERROR: free').waitFor());
  });

  it('a viewer reads the catalog (the server lets a viewer read) and is offered no form or Publish button', opts, async () => {
    const p = await b.open('/console/catalog/storefronts');
    await signIn(p.page, await operator('viewer'));
    await p.page.getByRole('cell', { name: 'Demo pricing' }).waitFor();
    assert.equal(await p.page.getByRole('button', { name: /Create|Save|Publish/ }).count(), 0);
    assert.equal(await p.page.getByRole('heading', { name: 'Storefront draft' }).count(), 0);
  });
});
