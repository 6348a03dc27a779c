import { mkdirSync, mkdtempSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { buildSync } from 'esbuild';

/**
 * Bundles a TypeScript entry point (resolving the workspace's path aliases) into one CommonJS file
 * that a child process can run with plain `node`: for tests that kill a real process.
 */
export function bundleScript(entryPoint: string): string {
  // Inside the workspace (tmp/ is git-ignored), so that the external packages resolve from node_modules.
  const scratch = resolve(__dirname, '../../../tmp/scripts');
  mkdirSync(scratch, { recursive: true });
  const outfile = join(mkdtempSync(join(scratch, 'script-')), 'script.cjs');
  buildSync({
    entryPoints: [entryPoint],
    outfile,
    bundle: true,
    platform: 'node',
    format: 'cjs',
    target: 'node24',
    packages: 'external',
    tsconfig: resolve(__dirname, '../../../tsconfig.base.json'),
    logLevel: 'error',
  });
  return outfile;
}
