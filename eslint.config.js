import tseslint from 'typescript-eslint';

export default tseslint.config(
  { ignores: ['node_modules/', '.svc-data/', 'bench-results/', 'bin/'] },
  ...tseslint.configs.recommended,
  {
    // Tests read JSON bodies of many shapes; `any` there keeps assertions short.
    files: ['test/**/*.ts'],
    rules: { '@typescript-eslint/no-explicit-any': 'off' },
  },
  {
    rules: {
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
    },
  },
);
