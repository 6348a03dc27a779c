import { mkdirSync, mkdtempSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { bundleEntry } from './bundle-entry.mjs';

const root = resolve(__dirname, '../../..');

/**
 * Bundles a TypeScript entry point (resolving the workspace's path aliases) into one CommonJS file
 * that a child process can run with plain `node`: for tests that kill a real process.
 */
export function bundleScript(entryPoint: string): string {
  // Inside the workspace (tmp/ is git-ignored), so that the external packages resolve from node_modules.
  const scratch = join(root, 'tmp', 'scripts');
  mkdirSync(scratch, { recursive: true });
  const outfile = join(mkdtempSync(join(scratch, 'script-')), 'script.cjs');
  bundleEntry(root, { entryPoints: [entryPoint], outfile });
  return outfile;
}
