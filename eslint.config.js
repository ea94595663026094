// ESLint: the recommended rules of ESLint and typescript-eslint, less the few that fight
// this code's deliberate idioms (each named with why). Formatting is Prettier's (.prettierrc.json).
import js from '@eslint/js';
import tseslint from 'typescript-eslint';

export default tseslint.config(
  { ignores: ['**/node_modules/**', 'dist/**', 'bin/*.cjs', 'test/fixtures/**', 'bench/tmp/**', 'bench/results.json'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    languageOptions: {
      globals: {
        process: 'readonly',
        console: 'readonly',
        Buffer: 'readonly',
        setTimeout: 'readonly',
        clearTimeout: 'readonly',
        setImmediate: 'readonly',
        setInterval: 'readonly',
        clearInterval: 'readonly',
        URL: 'readonly',
        structuredClone: 'readonly',
        __filename: 'readonly',
        require: 'readonly',
        AbortController: 'readonly',
        TextDecoder: 'readonly',
        TextEncoder: 'readonly',
        queueMicrotask: 'readonly',
        performance: 'readonly',
        fetch: 'readonly',
      },
    },
    rules: {
      // `_dropped` and `_rest` name what destructuring leaves out on purpose.
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_', caughtErrors: 'none' }],
      // recap keeps control characters out of job names and shell words: matching them is the point.
      'no-control-regex': 'off',
      // recap's output has columns two spaces apart, which tests match literally.
      'no-regex-spaces': 'off',
    },
  },
);
