/** The Stripe fake lives with the demo, which `npm start` can run (TOLLGATE_STRIPE_FAKE); the tests drive the same one. */
export * from '../../src/demo/stripe-fake.js';
