// ESLint flat config: typescript-eslint's recommended rules plus the type-aware rules that catch
// real bugs in async code (an un-awaited promise, a promise where a boolean or a void callback is
// expected). House style (layout, quotes, line length) is prettier's job, not ESLint's.
import js from '@eslint/js';
import { defineConfig } from 'eslint/config';
import tseslint from 'typescript-eslint';

export default defineConfig(
  { ignores: ['dist/', 'node_modules/', '.venv/', '.chbench/', 'results/', 'bench/results/'] },
  js.configs.recommended,
  tseslint.configs.recommended,
  {
    files: ['**/*.ts'],
    languageOptions: {
      parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname },
    },
    rules: {
      // Type-aware: each of these has found real bugs in Temporal activity code.
      '@typescript-eslint/no-floating-promises': [
        'error',
        // node:test's test()/describe() return promises the runner itself awaits.
        {
          allowForKnownSafeCalls: [
            { from: 'package', package: 'node:test', name: ['test', 'describe', 'it', 'suite'] },
          ],
        },
      ],
      '@typescript-eslint/no-misused-promises': 'error',
      '@typescript-eslint/await-thenable': 'error',
      '@typescript-eslint/only-throw-error': 'error',
      '@typescript-eslint/switch-exhaustiveness-check': ['error', { considerDefaultExhaustiveForUnions: true }],
      // `any` is sometimes the honest type of a driver's row; flag it, do not fail on it.
      '@typescript-eslint/no-explicit-any': 'warn',
      '@typescript-eslint/no-unused-vars': [
        'error',
        { argsIgnorePattern: '^_', varsIgnorePattern: '^_', caughtErrors: 'none' },
      ],
    },
  },
  {
    // Plain JS/ESM config files are not in tsconfig: no type information there.
    files: ['**/*.{js,cjs,mjs}'],
    extends: [tseslint.configs.disableTypeChecked],
    languageOptions: { globals: { module: 'readonly', require: 'readonly', __dirname: 'readonly' } },
  },
);
