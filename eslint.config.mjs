// ESLint for the whole project, with type information (typescript-eslint's project service reads
// tsconfig.json). Formatting is Prettier's job (`eslint-config-prettier` turns off every rule that would
// fight it); these rules are about what the type checker alone does not catch.
import js from '@eslint/js';
import prettier from 'eslint-config-prettier';
import globals from 'globals';
import tseslint from 'typescript-eslint';

export default tseslint.config(
  { ignores: ['dist/', 'node_modules/'] },
  js.configs.recommended,
  // The type-checked recommended set: floating and misused promises (a probe that is never awaited
  // hangs or loses a finding), unsafe flows of `any` out of JSON.parse and client libraries into typed
  // code, `${object}` in a message (messages are the product), awaiting a non-promise.
  ...tseslint.configs.recommendedTypeChecked.map((config) => ({ ...config, files: ['**/*.ts'] })),
  {
    files: ['**/*.ts'],
    languageOptions: {
      parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname },
    },
    rules: {
      // Findings are built in switch statements over unions (probe outcomes, read modes, content
      // kinds): a new member must not fall through silently.
      '@typescript-eslint/switch-exhaustiveness-check': ['error', { considerDefaultExhaustiveForUnions: true }],
      // `??` where `||` would also replace '' and 0, which are meaningful values in cluster data.
      '@typescript-eslint/prefer-nullish-coalescing': ['error', { ignorePrimitives: { string: true, boolean: true } }],
      // Type-only imports stay type-only (the bundle and `--experimental-strip-types` need it).
      '@typescript-eslint/consistent-type-imports': 'error',
      // `import { type A }` with nothing else keeps the module as a side-effect import in the bundle,
      // so that `--version` would load what only the types came from (the gRPC client, say).
      '@typescript-eslint/no-import-type-side-effects': 'error',
      // Strings in messages come from numbers, strings and booleans, never from objects or undefined.
      '@typescript-eslint/restrict-template-expressions': ['error', { allowNumber: true, allowBoolean: true, allowNullish: false }],
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      eqeqeq: ['error', 'always'],
    },
  },
  {
    files: ['src/**/*.ts'],
    rules: {
      // A condition that the types say is always true or false is dead code, or a wrong type. (Not in
      // the tests: their support code flips flags such as `closed` and `stopped` in callbacks, which
      // the rule cannot follow, and their suites assign fixtures in hooks the types do not see.)
      '@typescript-eslint/no-unnecessary-condition': ['error', { allowConstantLoopConditions: true }],
      // Production code never passes `any` on; every wire value is narrowed where it arrives.
      '@typescript-eslint/no-explicit-any': 'error',
      'no-console': 'error',
    },
  },
  {
    // The few plain-JavaScript scripts (the build, the benchmarks, the config files, a test preload)
    // are linted without types.
    files: ['**/*.mjs', '**/*.cjs'],
    languageOptions: { globals: globals.node },
  },
  {
    files: ['test/**/*.ts', 'scripts/**/*.ts'],
    rules: {
      // Tests parse reports and API objects and then assert on their shape: the assertions, not the
      // types, are the check there, so values of `any` may flow into them.
      '@typescript-eslint/no-unsafe-assignment': 'off',
      '@typescript-eslint/no-unsafe-member-access': 'off',
      '@typescript-eslint/no-unsafe-argument': 'off',
      '@typescript-eslint/no-unsafe-return': 'off',
      '@typescript-eslint/no-unsafe-call': 'off',
    },
  },
  prettier,
);
