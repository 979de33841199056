import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { checkTaxId, type TaxIdType } from './tax-id.js';

/**
 * Tax IDs by hand: real numbers their issuers publish as valid (HMRC's GB 980 7806 84, the ATO's
 * ABN 51 824 753 556, the National Tax Agency's corporate number 7000012050002), each with a digit
 * changed, and formats per type.
 */
describe('checkTaxId: format and check digits, normalised as documents print them', () => {
  const valid: Array<[TaxIdType, string, string, string | null]> = [
    ['gb_vat', 'GB 980 7806 84', 'GB980780684', 'GB'],
    ['gb_vat', 'gb980780684000', 'GB980780684000', 'GB'],
    ['gb_vat', 'GBGD001', 'GBGD001', 'GB'],
    ['au_abn', '51 824 753 556', '51824753556', 'AU'],
    ['jp_trn', 'T7000012050002', 'T7000012050002', 'JP'],
    ['jp_trn', 't 7000-0120-50002', 'T7000012050002', 'JP'],
    ['us_ein', '12-3456789', '12-3456789', 'US'],
    ['us_ein', '123456789', '12-3456789', 'US'],
    ['eu_vat', 'DE 123 456 789', 'DE123456789', 'DE'],
    ['eu_vat', 'ATU12345678', 'ATU12345678', 'AT'],
    ['eu_vat', 'EL123456789', 'EL123456789', 'GR'],
    ['eu_vat', 'NL123456789B01', 'NL123456789B01', 'NL'],
    ['eu_vat', 'FR 40 303265045', 'FR40303265045', 'FR'],
    ['eu_vat', 'XI980780684', 'XI980780684', 'GB'],
  ];
  for (const [type, raw, value, country] of valid)
    it(`${type} ${JSON.stringify(raw)} → ${value}`, () => assert.deepEqual(checkTaxId(type, raw), { ok: true, taxId: { type, value, country } }));

  const invalid: Array<[TaxIdType, string, RegExp]> = [
    ['gb_vat', 'GB980780685', /check digits/],
    ['gb_vat', 'GB123456789', /check digits/],
    ['gb_vat', 'DE123456789', /GB and 9 digits/],
    ['au_abn', '51 824 753 557', /check digits/],
    ['au_abn', '5182475355', /11 digits/],
    ['jp_trn', 'T7000012050003', /check digit/],
    ['jp_trn', '7000012050002', /T and 13 digits/],
    ['us_ein', '07-1234567', /prefix the IRS does not issue/],
    ['us_ein', '12-345678', /9 digits/],
    ['eu_vat', 'DE12345678', /not a DE VAT number/],
    ['eu_vat', 'GR123456789', /country's prefix/],
    ['eu_vat', 'US123456789', /country's prefix/],
    ['eu_vat', 'XI980780685', /check digits/],
    ['eu_vat', '', /country's prefix/],
  ];
  for (const [type, raw, reason] of invalid)
    it(`${type} ${JSON.stringify(raw)} is refused`, () => {
      const r = checkTaxId(type, raw);
      assert.equal(r.ok, false);
      if (!r.ok) assert.match(r.reason, reason);
    });
});
