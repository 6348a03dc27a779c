import nx from '@nx/eslint-plugin';
import jest from 'eslint-plugin-jest';
import tseslint from 'typescript-eslint';

/**
 * Who may import whom, by the Nx tags in each project.json. Every library has a layer, lowest first:
 *   layer:domain   contracts, fhir-model: the message catalog and the FHIR vocabulary, no I/O
 *   layer:infra    config, observability, persistence, messaging, http, cli, tokens, crypto, webhook-check: process, I/O, protocols
 *   layer:feature  clinic-directory: what several services share, built on the two below
 *   layer:testing  testing: the test environment, harnesses and stubs
 * and the apps (type:app, no layer) stand on all of them. A project imports from its own layer and
 * those below it, never from a higher one; no app imports another app; the testing layer is for
 * test code only (specs and testing/ folders, the second block using this).
 *
 * The tools (type:tool: tools/stack, the stack launcher; tools/e2e, tools/faults, bench; the
 * scripts in tools/) drive the apps from outside as tests do: they stand on every library layer,
 * testing included, and on each other, and they may reach into the apps' sources (`appSources`:
 * the launcher starts them in-process, the end-to-end tests read the gateway's OpenAPI document,
 * the benchmark measures intake's repositories). Nothing imports a tool but another tool.
 */
function moduleBoundaries({ testCode, appSources = false }) {
  const testing = testCode ? ['layer:testing'] : [];
  return [
    'error',
    {
      enforceBuildableLibDependency: false,
      // Relative imports of an app's files, from a tool (Nx refuses every import of an app otherwise).
      allow: appSources ? ['../apps/**', '../../apps/**', '../../../apps/**', '../../../../apps/**'] : [],
      depConstraints: [
        { sourceTag: 'type:app', onlyDependOnLibsWithTags: ['layer:domain', 'layer:infra', 'layer:feature', ...testing] },
        { sourceTag: 'type:lib', onlyDependOnLibsWithTags: ['type:lib'] },
        { sourceTag: 'layer:feature', onlyDependOnLibsWithTags: ['layer:domain', 'layer:infra', 'layer:feature', ...testing] },
        { sourceTag: 'layer:infra', onlyDependOnLibsWithTags: ['layer:domain', 'layer:infra', ...testing] },
        { sourceTag: 'layer:domain', onlyDependOnLibsWithTags: ['layer:domain', ...testing] },
        { sourceTag: 'layer:testing', onlyDependOnLibsWithTags: ['layer:domain', 'layer:infra', 'layer:feature'] },
        { sourceTag: 'type:tool', onlyDependOnLibsWithTags: ['layer:domain', 'layer:infra', 'layer:feature', 'layer:testing', 'type:tool'] },
        // A service's own code stays in its app; what services share is scope:shared.
        { sourceTag: 'scope:shared', onlyDependOnLibsWithTags: ['scope:shared'] },
        { sourceTag: 'scope:gateway', onlyDependOnLibsWithTags: ['scope:shared', 'scope:gateway'] },
        { sourceTag: 'scope:auth', onlyDependOnLibsWithTags: ['scope:shared', 'scope:auth'] },
        { sourceTag: 'scope:intake', onlyDependOnLibsWithTags: ['scope:shared', 'scope:intake'] },
        { sourceTag: 'scope:routing', onlyDependOnLibsWithTags: ['scope:shared', 'scope:routing'] },
        { sourceTag: 'scope:notifier', onlyDependOnLibsWithTags: ['scope:shared', 'scope:notifier'] },
        { sourceTag: 'scope:web', onlyDependOnLibsWithTags: ['scope:shared', 'scope:web'] },
      ],
    },
  ];
}

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
      // member. A default is taken as deliberate: the catch-all for the issue codes of zod, whose
      // union is the library's to extend.
      '@typescript-eslint/switch-exhaustiveness-check': ['error', { considerDefaultExhaustiveForUnions: true }],
      '@nx/enforce-module-boundaries': moduleBoundaries({ testCode: false }),
      // Nx sees `@bedrequest/fhir-model/testing` as fhir-model itself: the fixtures need their own rule.
      'no-restricted-imports': ['error', { patterns: [{ group: ['@bedrequest/*/testing'], message: 'Fixtures are for tests (*.spec.ts, testing/) only.' }] }],
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_' }],
      '@typescript-eslint/no-explicit-any': 'error',
      // A type-only import says so (`import type`, or `type` inside the braces): the bundle drops it,
      // and a reader sees at the import which names are only types.
      '@typescript-eslint/consistent-type-imports': ['error', { fixStyle: 'inline-type-imports' }],
      // `==` converts: `0 == ''` is true. The one exception is `== null`, which means null or undefined.
      eqeqeq: ['error', 'always', { null: 'ignore' }],
      // A body over several lines has braces; `if (done) return;` on one line needs none.
      curly: ['error', 'multi-line'],
    },
  },
  {
    // A file a reader takes in at once: at most 300 lines, comments and blank lines counted as
    // `wc -l` counts them; a longer one is split by what it does. Specs are lists of cases and stay
    // out; generated code is ignored above.
    files: ['**/*.{ts,mts,cts,js,mjs,cjs}'],
    ignores: ['**/*.spec.ts'],
    rules: { 'max-lines': ['error', { max: 300, skipBlankLines: false, skipComments: false }] },
  },
  {
    // A focused test (`it.only`) silently skips all the others of its file, and a skipped one
    // (`it.skip`, `xit`) proves nothing: neither lands. A test skipped on purpose (a missing browser)
    // says why in an eslint-disable comment.
    files: ['**/*.spec.ts', 'tools/e2e/**/*.ts', 'tools/faults/**/*.ts'],
    plugins: { jest },
    rules: {
      'jest/no-focused-tests': 'error',
      'jest/no-disabled-tests': 'error',
    },
  },
  {
    files: ['**/*.spec.ts', '**/testing/**/*.ts'],
    rules: {
      '@typescript-eslint/no-non-null-assertion': 'off',
      '@nx/enforce-module-boundaries': moduleBoundaries({ testCode: true }),
      'no-restricted-imports': 'off',
    },
  },
  {
    // The tools drive the stack like tests do: they may build their messages with the fixtures and
    // reach into the apps' sources (moduleBoundaries above).
    files: ['tools/**/*.ts', 'bench/**/*.ts'],
    rules: {
      '@typescript-eslint/no-non-null-assertion': 'off',
      '@nx/enforce-module-boundaries': moduleBoundaries({ testCode: true, appSources: true }),
      'no-restricted-imports': 'off',
    },
  },
];
