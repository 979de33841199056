export * from './types.js';
export * from './decimal.js';
export * from './currency.js';
export * from './rate.js';
export * from './validate.js';
export * from './display.js';
export * from './unit-pricing.js';
export * from './periods.js';
