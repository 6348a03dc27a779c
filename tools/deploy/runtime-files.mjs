// The node_modules a service's bundle runs with: the packages the bundle requires and their
// production dependencies, nothing else (one image per service holding only what that service
// runs: README.md, "Deploying"). The esbuild bundles (apps/<service>/project.json,
// `thirdParty: false`) contain the workspace's own code and leave npm packages external as literal
// `require("name")` calls, which name what the bundle needs from node_modules (the Prisma runtime,
// imported by each app's generated client, is bundled: no bundle requires @prisma/client).
// tools/deploy/runtime-files.int.spec.ts starts each service from its bundle and these packages
// alone.
//
//   node tools/deploy/runtime-files.mjs dist/apps/routing/main.cjs dist/apps/routing/cli-main.cjs /runtime
// copies the packages of routing's service and admin command line to /runtime/node_modules (the
// Docker build stage runs it, after `npm prune --omit=dev`, for every bundle of the SERVICE).
import { cpSync, existsSync, readFileSync, readdirSync, statSync } from 'node:fs';
import { builtinModules } from 'node:module';
import { dirname, join, relative, resolve, sep } from 'node:path';

/** The npm packages `bundleFile` requires, by name (`@prisma/adapter-pg`, not `@prisma/adapter-pg/dist/x`). */
export function requiredPackages(bundleFile) {
  const names = new Set();
  for (const [, specifier] of readFileSync(bundleFile, 'utf8').matchAll(/\brequire\("([^"]+)"\)/g)) {
    if (specifier.startsWith('node:') || specifier.startsWith('.') || builtinModules.includes(specifier)) continue;
    const parts = specifier.split('/');
    names.add(specifier.startsWith('@') ? parts.slice(0, 2).join('/') : parts[0]);
  }
  return [...names].sort();
}

/**
 * The folders (relative to `root`, e.g. `node_modules/pino` or `node_modules/a/node_modules/b`) of
 * `names` and of everything they depend on at run time: `dependencies`, the `optionalDependencies`
 * that are installed (a platform's native binary), and the `peerDependencies` not marked optional.
 * Each is looked up as Node's require looks it up: in the nearest node_modules above the package
 * that depends on it, never above `root`. What npm would not install without `--include=dev` is
 * never reached, so `npm prune --omit=dev` before this changes nothing but the speed.
 */
export function packageClosure(root, names) {
  const found = new Set();
  const pending = names.map((name) => ({ name, from: root, required: true }));
  while (pending.length > 0) {
    const { name, from, required } = pending.pop();
    const folder = locate(root, from, name);
    if (!folder) {
      if (!required) continue;
      throw new Error(`${name}, which ${from === root ? 'the bundle' : relative(root, from)} requires, is not installed under ${root}`);
    }
    if (found.has(folder)) continue;
    found.add(folder);
    const manifest = JSON.parse(readFileSync(join(folder, 'package.json'), 'utf8'));
    const optionalPeers = new Set(Object.entries(manifest.peerDependenciesMeta ?? {}).flatMap(([peer, meta]) => (meta.optional ? [peer] : [])));
    for (const dependency of Object.keys(manifest.dependencies ?? {})) {
      pending.push({ name: dependency, from: folder, required: !(dependency in (manifest.optionalDependencies ?? {})) });
    }
    for (const dependency of Object.keys(manifest.optionalDependencies ?? {})) pending.push({ name: dependency, from: folder, required: false });
    for (const peer of Object.keys(manifest.peerDependencies ?? {})) {
      if (!optionalPeers.has(peer)) pending.push({ name: peer, from: folder, required: true });
    }
  }
  return [...found].map((folder) => relative(root, folder)).sort();
}

/** Where `require(name)` from a file in `from` finds the package, searching no higher than `root`. */
function locate(root, from, name) {
  for (let directory = from; ; directory = dirname(directory)) {
    const candidate = join(directory, 'node_modules', name);
    if (existsSync(join(candidate, 'package.json'))) return candidate;
    if (directory === root || relative(root, directory).startsWith('..')) return undefined;
  }
}

/** Whether `path`, inside the package folder `folder`, belongs to a package of its own (its node_modules). */
const nested = (folder, path) => relative(folder, path).split(sep)[0] === 'node_modules';

/** Copies the package folders (packageClosure's) from `root` to the same places under `destination`, without symbolic links. */
export function copyPackages(root, folders, destination) {
  for (const folder of folders) {
    const source = join(root, folder);
    cpSync(source, join(destination, folder), { recursive: true, dereference: true, filter: (path) => !nested(source, path) });
  }
}

/** The bytes of the files in `folders` (relative to `root`), each without a node_modules inside it (the packages nested there). */
export function sizeOfFolders(root, folders) {
  let bytes = 0;
  const add = (folder, directory) => {
    for (const entry of readdirSync(directory, { withFileTypes: true })) {
      const path = join(directory, entry.name);
      if (nested(folder, path)) continue;
      if (entry.isDirectory()) add(folder, path);
      else bytes += statSync(path).size;
    }
  };
  for (const folder of folders) add(join(root, folder), join(root, folder));
  return bytes;
}

if (process.argv[1]?.endsWith('runtime-files.mjs')) {
  const bundles = process.argv.slice(2, -1);
  const destination = process.argv.at(-1);
  if (bundles.length === 0) {
    console.error('usage: node tools/deploy/runtime-files.mjs <bundle, e.g. dist/apps/gateway/main.cjs>... <destination: node_modules goes there>');
    process.exit(2);
  }
  const root = resolve(dirname(process.argv[1]), '..', '..');
  const names = [...new Set(bundles.flatMap((bundle) => requiredPackages(resolve(bundle))))];
  const folders = packageClosure(root, names);
  copyPackages(root, folders, resolve(destination));
  const mib = (sizeOfFolders(root, folders) / 2 ** 20).toFixed(1);
  console.log(`${bundles.join(', ')}: ${folders.length} packages, ${mib} MiB in ${join(destination, 'node_modules')}`);
}
