// `npm run lint`'s rule against import cycles between files (dependency-cruiser). A cycle couples
// every file on it: none may be read, tested or moved alone. ESLint's import plugins cannot see a
// cycle closed by an `import type` (crypto had one: data-keyring → fingerprint → rotation →
// data-keyring), so this counts type-only imports too (tsPreCompilationDeps). Cycles between Nx
// projects are refused by @nx/enforce-module-boundaries already; this one is about files.
/** @type {import('dependency-cruiser').IConfiguration} */
module.exports = {
  forbidden: [
    {
      name: 'no-circular',
      severity: 'error',
      comment: 'An import cycle: break it by moving what both sides need into a module of its own.',
      from: {},
      to: { circular: true },
    },
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    exclude: { path: '(^|/)(dist|tmp|node_modules|generated)/' },
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.base.json' },
    enhancedResolveOptions: { extensions: ['.ts', '.mts', '.cts', '.js', '.mjs', '.cjs', '.json'] },
    skipAnalysisNotInRules: true,
  },
};
