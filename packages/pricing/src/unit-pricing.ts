import type { CatalogUnitPricing, UnitPricing } from './types.js';

/**
 * A unit with every field it does not name at its "not used" value (rate "0", no free units,
 * no blocks, no minimum, no tiers, no weights, no multipliers): the base for units built in code
 * rather than read from the operator API.
 */
export function unitPricingWith(fields: Partial<CatalogUnitPricing> & Pick<UnitPricing, 'pricingModel' | 'metricName'>): CatalogUnitPricing {
  return {
    metricId: '',
    rate: '0',
    includedFree: 0,
    blockSize: null,
    minFee: null,
    tiers: [],
    outcomeWeights: null,
    multipliers: { tools: {}, endpoints: {} },
    ...fields,
  };
}
