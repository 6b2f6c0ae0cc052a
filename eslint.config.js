import tseslint from 'typescript-eslint';

export default tseslint.config(
  { ignores: ['node_modules/', '.svc-data/', 'bench-results/', 'bin/', 'sdk/dist/', 'studio/dist/', 'sdk/src/generated/'] },
  ...tseslint.configs.recommended,
  {
    // Tests read JSON bodies of many shapes; `any` there keeps assertions short.
    files: ['test/**/*.ts'],
    rules: { '@typescript-eslint/no-explicit-any': 'off' },
  },
  {
    rules: {
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      // An error's status comes from domain/shared/errorCatalogue.ts, never from the throw.
      'no-restricted-syntax': [
        'error',
        {
          selector: 'NewExpression[callee.name="AppError"] > Literal[raw=/^[0-9]+$/]',
          message: 'AppError takes its status from the error catalogue (domain/shared/errorCatalogue.ts): pass the code and message only.',
        },
      ],
    },
  },
);
