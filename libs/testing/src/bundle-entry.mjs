// Bundles TypeScript entry points of the workspace into CommonJS files that plain `node` runs: the
// workspace's path aliases resolved from tsconfig.base.json, packages left in node_modules (so the
// output must lie inside the workspace, e.g. in the git-ignored tmp/, for them to resolve). The
// way the services' own builds bundle (apps/*/project.json), for what runs TypeScript without a
// build: tools/admin.mjs, bench/run.mjs and bundleScript (bundle-script.ts). Plain JavaScript, so
// that those two scripts can import it with plain `node`.
import { join } from 'node:path';
import { buildSync } from 'esbuild';

/**
 * @param {string} root the workspace root
 * @param {{ entryPoints: string[] | Record<string, string>, outfile?: string, outdir?: string }} output
 *   one entry point to `outfile`, or several to `outdir` (each `<name>.cjs`)
 */
export function bundleEntry(root, { entryPoints, outfile, outdir }) {
  buildSync({
    entryPoints,
    ...(outfile ? { outfile } : { outdir, outExtension: { '.js': '.cjs' } }),
    bundle: true,
    platform: 'node',
    format: 'cjs',
    target: 'node24',
    packages: 'external',
    tsconfig: join(root, 'tsconfig.base.json'),
    logLevel: 'error',
  });
}
