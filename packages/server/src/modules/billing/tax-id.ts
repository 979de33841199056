/**
 * Pure: tax IDs as a seller's or customer's billing details carry them (issue 42), typed as
 * Stripe types them. A value is normalised (spaces, dots and dashes dropped, upper case; an EIN
 * keeps its dash) and checked by its format and, where the scheme has one, its check digits: GB
 * VAT (mod 97, both series), Australian ABN (mod 89) and Japan's qualified-invoice registration
 * number (T and a corporate number, mod 9). EU VAT numbers are checked by their country's format
 * only. Nothing is verified with a registry (VIES, HMRC, ABR): that needs the network.
 */

export const taxIdTypes = ['eu_vat', 'gb_vat', 'us_ein', 'au_abn', 'jp_trn'] as const;
export type TaxIdType = (typeof taxIdTypes)[number];

export interface TaxId {
  type: TaxIdType;
  /** Normalised: what documents print. */
  value: string;
  /** eu_vat and gb_vat: the country of the prefix (GR for EL, GB for XI's United Kingdom). */
  country: string | null;
}

/** An EU VAT number's body after its prefix, per member state (EL is Greece's prefix; XI is Northern Ireland's, GB-style). */
const EU_VAT: Record<string, { country: string; body: RegExp }> = {
  AT: { country: 'AT', body: /^U\d{8}$/ },
  BE: { country: 'BE', body: /^[01]\d{9}$/ },
  BG: { country: 'BG', body: /^\d{9,10}$/ },
  CY: { country: 'CY', body: /^\d{8}[A-Z]$/ },
  CZ: { country: 'CZ', body: /^\d{8,10}$/ },
  DE: { country: 'DE', body: /^\d{9}$/ },
  DK: { country: 'DK', body: /^\d{8}$/ },
  EE: { country: 'EE', body: /^\d{9}$/ },
  EL: { country: 'GR', body: /^\d{9}$/ },
  ES: { country: 'ES', body: /^[A-Z0-9]\d{7}[A-Z0-9]$/ },
  FI: { country: 'FI', body: /^\d{8}$/ },
  FR: { country: 'FR', body: /^[A-HJ-NP-Z0-9]{2}\d{9}$/ },
  HR: { country: 'HR', body: /^\d{11}$/ },
  HU: { country: 'HU', body: /^\d{8}$/ },
  IE: { country: 'IE', body: /^(\d{7}[A-W][A-I]?|\d[A-Z+*]\d{5}[A-W])$/ },
  IT: { country: 'IT', body: /^\d{11}$/ },
  LT: { country: 'LT', body: /^(\d{9}|\d{12})$/ },
  LU: { country: 'LU', body: /^\d{8}$/ },
  LV: { country: 'LV', body: /^\d{11}$/ },
  MT: { country: 'MT', body: /^\d{8}$/ },
  NL: { country: 'NL', body: /^\d{9}B\d{2}$/ },
  PL: { country: 'PL', body: /^\d{10}$/ },
  PT: { country: 'PT', body: /^\d{9}$/ },
  RO: { country: 'RO', body: /^\d{2,10}$/ },
  SE: { country: 'SE', body: /^\d{10}01$/ },
  SI: { country: 'SI', body: /^\d{8}$/ },
  SK: { country: 'SK', body: /^\d{10}$/ },
  XI: { country: 'GB', body: /^(\d{9}|\d{12}|GD[0-4]\d{2}|HA[5-9]\d{2})$/ },
};

/** Mod 97 over the first seven digits (weights 8 to 2) and the last two: the old series or the 2010 one (+55). */
function gbCheck(nine: string): boolean {
  const d = [...nine].map(Number);
  const total = d.slice(0, 7).reduce((acc, x, i) => acc + x * (8 - i), 0) + d[7]! * 10 + d[8]!;
  return total % 97 === 0 || (total + 55) % 97 === 0;
}

/** The first digit less one, weights 10, 1, 3, 5, …, 19, mod 89. */
function abnCheck(eleven: string): boolean {
  const weights = [10, 1, 3, 5, 7, 9, 11, 13, 15, 17, 19];
  const d = [...eleven].map(Number);
  d[0]! -= 1;
  return d.reduce((acc, x, i) => acc + x * weights[i]!, 0) % 89 === 0;
}

/** A Japanese corporate number: its first digit is 9 less (the other twelve, weighted 1 and 2 from the right) mod 9. */
function corporateNumberCheck(thirteen: string): boolean {
  const base = [...thirteen.slice(1)].map(Number).reverse();
  const sum = base.reduce((acc, x, i) => acc + x * (i % 2 === 0 ? 1 : 2), 0);
  return Number(thirteen[0]) === 9 - (sum % 9);
}

/** EINs the IRS never issues begin with these. */
const NO_EIN_PREFIX = new Set(['00', '07', '08', '09', '17', '18', '19', '28', '29', '49', '69', '70', '78', '79', '89', '96', '97']);

/** A tax ID checked, or why not (a sentence naming what is wrong, for the caller's field). */
export function checkTaxId(type: TaxIdType, raw: string): { ok: true; taxId: TaxId } | { ok: false; reason: string } {
  const compact = raw.replace(/[\s.-]/g, '').toUpperCase();
  const fail = (reason: string) => ({ ok: false as const, reason });
  switch (type) {
    case 'eu_vat': {
      const prefix = compact.slice(0, 2);
      const rule = EU_VAT[prefix];
      if (!rule)
        return fail(`an EU VAT number starts with its country's prefix (AT, BE, …, EL for Greece, XI for Northern Ireland), got ${JSON.stringify(raw)}`);
      const body = compact.slice(2);
      if (!rule.body.test(body))
        return fail(`${JSON.stringify(raw)} is not a ${prefix} VAT number (${prefix} then ${rule.body.source.replace(/^\^|\$$/g, '')})`);
      if (prefix === 'XI' && /^\d{9}/.test(body) && !gbCheck(body.slice(0, 9))) return fail(`${JSON.stringify(raw)} fails its check digits`);
      return { ok: true, taxId: { type, value: compact, country: rule.country } };
    }
    case 'gb_vat': {
      const m = /^GB(\d{9}|\d{12}|GD[0-4]\d{2}|HA[5-9]\d{2})$/.exec(compact);
      if (!m) return fail(`a GB VAT number is GB and 9 digits (12 for a branch, or GD/HA and 3 digits), got ${JSON.stringify(raw)}`);
      if (/^\d/.test(m[1]!) && !gbCheck(m[1]!.slice(0, 9))) return fail(`${JSON.stringify(raw)} fails its check digits`);
      return { ok: true, taxId: { type, value: compact, country: 'GB' } };
    }
    case 'us_ein': {
      const digits = compact.replace(/-/g, '');
      if (!/^\d{9}$/.test(digits)) return fail(`an EIN is 9 digits, as 12-3456789, got ${JSON.stringify(raw)}`);
      if (NO_EIN_PREFIX.has(digits.slice(0, 2))) return fail(`${JSON.stringify(raw)} begins with ${digits.slice(0, 2)}, a prefix the IRS does not issue`);
      return { ok: true, taxId: { type, value: `${digits.slice(0, 2)}-${digits.slice(2)}`, country: 'US' } };
    }
    case 'au_abn': {
      if (!/^\d{11}$/.test(compact)) return fail(`an ABN is 11 digits, got ${JSON.stringify(raw)}`);
      if (!abnCheck(compact)) return fail(`${JSON.stringify(raw)} fails its check digits`);
      return { ok: true, taxId: { type, value: compact, country: 'AU' } };
    }
    case 'jp_trn': {
      if (!/^T\d{13}$/.test(compact)) return fail(`a registration number is T and 13 digits, got ${JSON.stringify(raw)}`);
      if (!corporateNumberCheck(compact.slice(1))) return fail(`${JSON.stringify(raw)} fails its check digit`);
      return { ok: true, taxId: { type, value: compact, country: 'JP' } };
    }
  }
}
