import nx from '@nx/eslint-plugin';
import tseslint from 'typescript-eslint';

export default [
  { ignores: ['**/dist', '**/node_modules', '**/generated', 'tmp', '.nx', 'coverage'] },
  ...nx.configs['flat/base'],
  ...nx.configs['flat/typescript'],
  {
    files: ['**/*.ts'],
    // Type information (each file's nearest tsconfig.json) for the rules below that need it.
    languageOptions: { parser: tseslint.parser, parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname } },
    rules: {
      // A promise nobody awaits loses its rejection (an unhandled rejection ends the process).
      '@typescript-eslint/no-floating-promises': 'error',
      // A switch over a union without a default (message types, Task states) must name every
      // member. A default is taken as deliberate: the catch-all for an unknown CLI command or for
      // the issue codes of zod, whose union is the library's to extend.
      '@typescript-eslint/switch-exhaustiveness-check': ['error', { considerDefaultExhaustiveForUnions: true }],
      '@nx/enforce-module-boundaries': [
        'error',
        {
          allow: [],
          enforceBuildableLibDependency: false,
          depConstraints: [
            // Apps depend on libraries only, never on each other.
            { sourceTag: 'type:app', onlyDependOnLibsWithTags: ['type:lib', 'type:testing'] },
            { sourceTag: 'type:lib', onlyDependOnLibsWithTags: ['type:lib', 'type:testing'] },
            { sourceTag: 'type:testing', onlyDependOnLibsWithTags: ['type:lib'] },
            { sourceTag: 'scope:shared', onlyDependOnLibsWithTags: ['scope:shared'] },
            { sourceTag: 'scope:gateway', onlyDependOnLibsWithTags: ['scope:shared', 'scope:gateway'] },
            { sourceTag: 'scope:auth', onlyDependOnLibsWithTags: ['scope:shared', 'scope:auth'] },
            { sourceTag: 'scope:intake', onlyDependOnLibsWithTags: ['scope:shared', 'scope:intake'] },
            { sourceTag: 'scope:routing', onlyDependOnLibsWithTags: ['scope:shared', 'scope:routing'] },
            { sourceTag: 'scope:notifier', onlyDependOnLibsWithTags: ['scope:shared', 'scope:notifier'] },
          ],
        },
      ],
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_' }],
      '@typescript-eslint/no-explicit-any': 'error',
    },
  },
  {
    files: ['**/*.spec.ts', '**/testing/**/*.ts'],
    rules: { '@typescript-eslint/no-non-null-assertion': 'off' },
  },
];
