// Type-aware lint: floating and misused promises are errors (a lost await loses money or messages).
import reactHooks from 'eslint-plugin-react-hooks';
import tseslint from 'typescript-eslint';

export default tseslint.config(
  { ignores: ['dist/**', 'node_modules/**', 'coverage/**', 'jest.config.js', 'eslint.config.mjs', '*.tmp.ts'] },
  ...tseslint.configs.recommended,
  {
    languageOptions: { parserOptions: { project: './tsconfig.json', tsconfigRootDir: import.meta.dirname } },
    rules: {
      '@typescript-eslint/no-floating-promises': 'error',
      '@typescript-eslint/no-misused-promises': ['error', { checksVoidReturn: { arguments: false } }],
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      '@typescript-eslint/no-explicit-any': 'error',
      'no-restricted-properties': ['error',
        { object: 'it', property: 'only' }, { object: 'describe', property: 'only' },
        { object: 'it', property: 'skip' }, { object: 'describe', property: 'skip' }],
    },
  },
  // One unit of work (src/database/unit-of-work.ts): TypeORM's own transactions would bypass its
  // nesting, retries and the embedded database's gate.
  {
    files: ['src/**/*.ts'],
    ignores: ['src/database/**'],
    rules: {
      'no-restricted-syntax': ['error',
        { selector: "CallExpression[callee.property.name='transaction']:not([callee.object.name='uow']):not([callee.object.property.name='uow'])", message: 'Use UnitOfWork.transaction (src/database/unit-of-work.ts).' },
        { selector: "CallExpression[callee.property.name=/^(startTransaction|createQueryRunner)$/]", message: 'Use UnitOfWork (src/database/unit-of-work.ts).' }],
    },
  },
  // The developer console (browser code, its own tsconfig): the same rules plus the rules of hooks.
  {
    files: ['console/src/**/*.{ts,tsx}'],
    plugins: { 'react-hooks': reactHooks },
    languageOptions: { parserOptions: { project: './console/tsconfig.json', tsconfigRootDir: import.meta.dirname } },
    rules: { 'react-hooks/rules-of-hooks': 'error', 'react-hooks/exhaustive-deps': 'error' },
  },
);
