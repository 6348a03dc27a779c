// Summarises V8 CPU profiles (`node --cpu-prof`) by self time: the busiest functions and the share
// of each package, source folder or V8 activity (GC, idle, program). Usage:
//   node bench/profile-summary.mjs <profile-dir-or-file>... [--top=25]
import { readFileSync, readdirSync, statSync } from 'node:fs';
import { basename, join } from 'node:path';

const args = process.argv.slice(2);
const top = Number(args.find((arg) => arg.startsWith('--top='))?.slice(6) ?? 25);
const files = args
  .filter((arg) => !arg.startsWith('--'))
  .flatMap((path) =>
    statSync(path).isDirectory()
      ? readdirSync(path)
          .filter((name) => name.endsWith('.cpuprofile'))
          .map((name) => join(path, name))
      : [path],
  );
if (files.length === 0) {
  console.error('usage: node bench/profile-summary.mjs <profile-dir-or-file>... [--top=25]');
  process.exit(2);
}

/** Where a function lives: a package, a folder of ours, node itself, or V8's own activity. */
function area(frame) {
  const url = frame.url ?? '';
  if (!url) return frame.functionName.startsWith('(') ? frame.functionName : '(native)';
  if (url.startsWith('node:')) return `node:${url.slice(5).split('/')[0]}`;
  const modules = url.lastIndexOf('node_modules/');
  if (modules >= 0) {
    const parts = url.slice(modules + 13).split('/');
    return parts[0].startsWith('@') ? `${parts[0]}/${parts[1]}` : parts[0];
  }
  const ours = /(apps|libs)\/([^/]+)\/src\/(.*)$/.exec(url);
  if (ours) return `${ours[1]}/${ours[2]}/${ours[3].split('/')[0]}`;
  return basename(url);
}

for (const file of files) {
  const profile = JSON.parse(readFileSync(file, 'utf8'));
  const byId = new Map(profile.nodes.map((node) => [node.id, node]));
  const self = new Map();
  // timeDeltas[i] is the time before sample i.
  profile.samples.forEach((id, index) => self.set(id, (self.get(id) ?? 0) + (profile.timeDeltas[index] ?? 0)));
  const totalUs = [...self.values()].reduce((sum, us) => sum + us, 0);
  const idleUs = [...self].filter(([id]) => byId.get(id).callFrame.functionName === '(idle)').reduce((sum, [, us]) => sum + us, 0);
  const busyUs = totalUs - idleUs;
  const functions = new Map();
  const areas = new Map();
  for (const [id, us] of self) {
    const frame = byId.get(id).callFrame;
    if (frame.functionName === '(idle)') continue;
    const key = `${frame.functionName || '(anonymous)'} ${frame.url ? `${frame.url.replace(/^.*node_modules\//, '').replace(/^.*\/(apps|libs)\//, '$1/')}:${frame.lineNumber + 1}` : ''}`;
    functions.set(key, (functions.get(key) ?? 0) + us);
    const where = area(frame);
    areas.set(where, (areas.get(where) ?? 0) + us);
  }
  const pct = (us) => `${((100 * us) / busyUs).toFixed(1).padStart(5)} %`;
  const ms = (us) => `${(us / 1000).toFixed(0).padStart(7)} ms`;
  console.log(`\n== ${basename(file)}: ${(totalUs / 1e6).toFixed(1)} s profiled, ${(busyUs / 1e6).toFixed(2)} s busy (not idle)`);
  console.log('-- by area (self time, share of busy time)');
  for (const [name, us] of [...areas].sort((a, b) => b[1] - a[1]).slice(0, top)) console.log(`${ms(us)} ${pct(us)}  ${name}`);
  console.log('-- busiest functions (self time)');
  for (const [name, us] of [...functions].sort((a, b) => b[1] - a[1]).slice(0, top)) console.log(`${ms(us)} ${pct(us)}  ${name}`);
}
