import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { gzipSync } from 'node:zlib';
import { bundleModule, bundleScript } from '../scripts/bundle.mjs';

describe('the widget builds', () => {
  it('the self-contained script defines the element with Lit and the pricing display module inside, under 30 kB gzipped', async () => {
    const script = await bundleScript();
    assert.match(script, /tollgate-upgrade-cancel/);
    assert.doesNotMatch(script, /(^|[^.\w])(import|export)\s*[{*]/m, 'a classic script: no import or export');
    assert.match(script, /Contact sales/, 'the pricing display module is bundled');
    const gz = gzipSync(script, { level: 9 }).length;
    assert.ok(gz <= 30_000, `${gz} bytes gzipped`);
  });

  it('the ESM build leaves Lit to the page and bundles the pricing module', async () => {
    const mod = await bundleModule();
    assert.match(mod, /from "lit"/);
    assert.doesNotMatch(mod, /class ReactiveElement|lit-html/, 'Lit is not inside');
    assert.match(mod, /Contact sales/);
    assert.match(mod, /export \{/);
  });
});
