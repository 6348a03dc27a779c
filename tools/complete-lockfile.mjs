// Adds the lockfile entries npm leaves out for other platforms' optional binaries.
//
// npm writes into package-lock.json only the platform packages it could resolve (here: those the
// registry mirror holds for linux-x64), but `npm ci` (npm >= 11.12) then refuses the lockfile as
// "out of sync" because the dependency graph names the others (@swc/core-darwin-arm64, ...).
// This records each missing optional package with the exact version its parent asks for, marked
// optional, so `npm ci` accepts the lockfile and skips them on platforms they do not fit.
// Run after `npm install` changes dependencies: `node tools/complete-lockfile.mjs`.
import { execFileSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';

const lockPath = new URL('../package-lock.json', import.meta.url);

function missingFromLock() {
  try {
    execFileSync('npm', ['ci', '--dry-run', '--ignore-scripts', '--no-audit', '--no-fund'], { stdio: 'pipe', encoding: 'utf8' });
    return [];
  } catch (error) {
    return [...String(error.stderr).matchAll(/Missing: (.+?)@\S* from lock file/g)].map((match) => match[1]);
  }
}

const lock = JSON.parse(readFileSync(lockPath, 'utf8'));
const missing = [...new Set(missingFromLock())];
for (const name of missing) {
  const parents = Object.entries(lock.packages).filter(([, entry]) => entry.optionalDependencies?.[name]);
  if (parents.length === 0) throw new Error(`no package in the lockfile declares ${name} as optional`);
  // One entry per parent folder, beside the parent, so that each parent's version is honoured.
  for (const [parentPath, parent] of parents) {
    const base = parentPath.includes('node_modules/') ? parentPath.slice(0, parentPath.lastIndexOf('node_modules/')) : '';
    const path = `${base}node_modules/${name}`;
    if (lock.packages[path] && lock.packages[path].version === parent.optionalDependencies[name]) continue;
    lock.packages[path] = { version: parent.optionalDependencies[name], dev: parent.dev, optional: true };
  }
}
writeFileSync(lockPath, `${JSON.stringify(lock, null, 2)}\n`);
console.log(missing.length ? `recorded ${missing.length} optional platform packages` : 'lockfile complete');
