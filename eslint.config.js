// ESLint over the TypeScript sources, type-aware: each file is checked with the tsconfig.json
// nearest to it (packages/server, packages/pricing, bench). Plain JS files (scripts, the bin
// entry, this file) are in no tsconfig, so they get only the rules that need no types.
import js from '@eslint/js';
import { defineConfig } from 'eslint/config';
import tseslint from 'typescript-eslint';

// The Stripe fake is test code the development profile can run too (TOLLGATE_STRIPE_FAKE): it speaks
// Stripe's loosely typed form-encoded objects, as the tests' helpers do.
const TESTS = ['**/*.test.ts', 'packages/server/test/**', 'packages/server/src/demo/stripe-fake.ts'];

export default defineConfig(
  { ignores: ['**/node_modules/', '**/data/', '**/dist/', 'coverage/', 'bench/results/', 'test-artifacts/'] },
  js.configs.recommended,
  tseslint.configs.recommendedTypeChecked,
  {
    languageOptions: {
      parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname },
    },
    rules: {
      // node:test's describe/it/test return promises the runner itself awaits.
      '@typescript-eslint/no-floating-promises': [
        'error',
        {
          allowForKnownSafeCalls: [
            { from: 'package', package: 'node:test', name: ['describe', 'it', 'test', 'suite', 'before', 'after', 'beforeEach', 'afterEach'] },
          ],
        },
      ],
      // `async` without `await` is deliberate here: Fastify plugins are async functions, and Promise-returning interfaces (Bus, RateLimiter) are implemented async so a throw becomes a rejection.
      '@typescript-eslint/require-await': 'off',
      // A leading underscore marks a value left unused on purpose, most often a field dropped by rest destructuring.
      '@typescript-eslint/no-unused-vars': [
        'error',
        { argsIgnorePattern: '^_', varsIgnorePattern: '^_', caughtErrorsIgnorePattern: '^_', ignoreRestSiblings: true },
      ],
      // field-mapping.ts throws its Failure value as control flow and catches it in the same file: no stack is built per bad webhook.
      '@typescript-eslint/only-throw-error': [
        'error',
        { allow: [{ from: 'file', name: 'Failure', path: 'packages/server/src/modules/plugs/field-mapping.ts' }] },
      ],
    },
  },
  {
    // The forwarder's and the benches' files import the server's sources: linted in the type
    // check's one program for the three (tsconfig.check.json, the same compiler options as their
    // own tsconfigs), not in a program of their own that builds the server's types once more.
    files: ['bench/**/*.ts', 'packages/forwarder/**/*.ts'],
    languageOptions: {
      parserOptions: { projectService: false, project: './tsconfig.check.json', tsconfigRootDir: import.meta.dirname },
    },
  },
  {
    files: TESTS,
    rules: {
      // Tests read JSON answers and OpenAPI documents as any (`res.json()` is any) and check them with assert: a wrong shape fails the assertion, so typing each one adds nothing.
      '@typescript-eslint/no-explicit-any': 'off',
      '@typescript-eslint/no-unsafe-member-access': 'off',
      '@typescript-eslint/no-unsafe-assignment': 'off',
      '@typescript-eslint/no-unsafe-argument': 'off',
      '@typescript-eslint/no-unsafe-call': 'off',
      '@typescript-eslint/no-unsafe-return': 'off',
    },
  },
  {
    files: ['packages/server/src/db/migrations/**'],
    rules: {
      // Migrations take Kysely<any> on purpose (a migration must not see today's table types, which change after it), so what they build is any.
      '@typescript-eslint/no-explicit-any': 'off',
      '@typescript-eslint/no-unsafe-call': 'off',
      '@typescript-eslint/no-unsafe-member-access': 'off',
      '@typescript-eslint/no-unsafe-return': 'off',
    },
  },
  {
    files: ['**/*.js', '**/*.mjs', '**/*.cjs'],
    extends: [tseslint.configs.disableTypeChecked],
    languageOptions: {
      globals: { process: 'readonly', console: 'readonly', URL: 'readonly' },
    },
  },
  {
    files: ['**/*.cjs'],
    languageOptions: { sourceType: 'commonjs', globals: { require: 'readonly', module: 'writable', __dirname: 'readonly' } },
    // CommonJS files load their dependencies with require().
    rules: { '@typescript-eslint/no-require-imports': 'off' },
  },
);
