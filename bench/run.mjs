// `npm run bench`: bundles the benchmark (bench/src, TypeScript using the workspace's libraries)
// with esbuild into tmp/bench and runs it under this Node. See bench/README.md.
import { spawnSync } from 'node:child_process';
import { mkdirSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { bundleEntry } from '../libs/testing/src/bundle-entry.mjs';

// The benchmark's stack uses the local defaults: unset NODE_ENV would mean production, which needs secrets.
// Blank (`NODE_ENV= npm …`) is unset, as for the services (libs/config, nodeEnv).
if (!process.env.NODE_ENV?.trim()) process.env.NODE_ENV = 'development';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const outdir = join(root, 'tmp', 'bench');
mkdirSync(outdir, { recursive: true });
bundleEntry(root, {
  entryPoints: {
    main: join(root, 'bench', 'src', 'main.ts'),
    'baseline-server': join(root, 'bench', 'src', 'baseline-server.ts'),
    abuser: join(root, 'bench', 'src', 'abuser.ts'),
    year: join(root, 'bench', 'src', 'year', 'main.ts'),
  },
  outdir,
});
// `npm run bench -- year-seed …`: the year's template alone (bench/src/year/main.ts), no stack.
const [entry, args] = process.argv[2] === 'year-seed' ? ['year.cjs', process.argv.slice(3)] : ['main.cjs', process.argv.slice(2)];
const result = spawnSync(process.execPath, [join(outdir, entry), ...args], { cwd: root, stdio: 'inherit' });
process.exit(result.status ?? 1);
