// Lint: typescript-eslint's strict, type-aware rules over the harness, its tests and benchmarks; prettier owns layout.
import js from '@eslint/js';
import tseslint from 'typescript-eslint';

export default tseslint.config(
  {
    ignores: [
      'dist/',
      'node_modules/',
      'runs/',
      'reports/',
      'test-artifacts/',
      'vm-images/',
      'test/fixtures/**/*.mjs',
      'adapters/**/*.mjs',
    ],
  },
  js.configs.recommended,
  ...tseslint.configs.strictTypeChecked,
  {
    languageOptions: { parserOptions: { project: './tsconfig.test.json', tsconfigRootDir: import.meta.dirname } },
    rules: {
      // Template literals with numbers are how every message and report line is written.
      '@typescript-eslint/restrict-template-expressions': ['error', { allowNumber: true, allowBoolean: true }],
      // noUncheckedIndexedAccess types every indexed read as possibly undefined; the hot loops index typed arrays and
      // sorted samples inside their bounds, where `!` states what the loop guarantees.
      '@typescript-eslint/no-non-null-assertion': 'off',
      // `() => void x` and `(v) => set.add(v)` shorthand arrows are clear, and so is `return this.fail()` in a void method
      // (the byte parsers' way to stop at a mismatch); a void expression elsewhere is still flagged.
      '@typescript-eslint/no-confusing-void-expression': [
        'error',
        { ignoreArrowShorthand: true, ignoreVoidReturningFunctions: true },
      ],
      // `const { t: _t, ...rest } = e` is how a field is dropped from a copy; a leading `_` marks a name kept unused on purpose.
      '@typescript-eslint/no-unused-vars': [
        'error',
        { ignoreRestSiblings: true, varsIgnorePattern: '^_', argsIgnorePattern: '^_' },
      ],
    },
  },
  // AS 241's coefficients are printed to more digits than a double holds, as published; rounding them would hide that.
  { files: ['harness/stats/normal.ts'], rules: { 'no-loss-of-precision': 'off' } },
  { files: ['eslint.config.js'], extends: [tseslint.configs.disableTypeChecked] },
);
