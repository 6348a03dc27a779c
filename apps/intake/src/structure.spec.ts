import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve, sep } from 'node:path';
import { preProcessFile } from 'typescript';

/**
 * How intake's folders use each other (a folder shared by several features sits below them): a
 * folder's code uses another folder only through its index.ts, and the folders form layers, no two
 * using each other in a circle. Tests and the files of src/ itself (main.ts, start.ts, cli.ts: they
 * wire the folders together) stand outside the layers. `generated/` (Prisma's client) is no
 * feature: it is imported as it is.
 */
const SOURCE = __dirname;

function sourceFiles(folder: string): string[] {
  return readdirSync(folder, { withFileTypes: true }).flatMap((entry) => {
    const path = join(folder, entry.name);
    if (entry.isDirectory()) return entry.name === 'generated' ? [] : sourceFiles(path);
    return entry.name.endsWith('.ts') ? [path] : [];
  });
}

/** The top folder of src/ a path lies in, or undefined for a file of src/ itself (main.ts, start.ts, ...). */
function folderOf(path: string): string | undefined {
  const parts = relative(SOURCE, path).split(sep);
  return parts.length > 1 ? parts[0] : undefined;
}

const imports = sourceFiles(SOURCE).flatMap((file) =>
  preProcessFile(readFileSync(file, 'utf8'), true, true)
    .importedFiles.map((imported) => imported.fileName)
    .filter((name) => name.startsWith('.'))
    .map((name) => ({ file: relative(SOURCE, file), from: folderOf(file), target: resolve(dirname(file), name) }))
    .filter(({ target }) => folderOf(target) !== 'generated' && !relative(SOURCE, target).startsWith('..')),
);

/** The imports of the folders' code: not of tests, not of src/'s own files. */
const layered = imports.filter(({ file, from }) => from !== undefined && !file.endsWith('.spec.ts'));

describe("intake's folders", () => {
  it("are used by another folder's code through their index.ts only, and never through their own", () => {
    const throughIndex = (target: string) => relative(SOURCE, target).split(sep).length === 1;
    const deep = layered
      .filter(({ from, target }) => folderOf(target) !== from && !throughIndex(target))
      .map(({ file, target }) => `${file} → ${relative(SOURCE, target)}`);
    const ownIndex = layered.filter(({ from, target }) => from !== undefined && target === join(SOURCE, from)).map(({ file }) => file);
    expect({ deep, ownIndex }).toEqual({ deep: [], ownIndex: [] });
  });

  it('form layers: no folder uses one that uses it back, directly or through others', () => {
    const uses = new Map<string, Set<string>>();
    for (const { from, target } of layered) {
      const to = folderOf(target) ?? relative(SOURCE, target);
      if (from === undefined || to === from) continue;
      uses.set(from, (uses.get(from) ?? new Set()).add(to));
    }
    const circles: string[] = [];
    const reaches = (from: string, to: string, seen = new Set<string>()): boolean =>
      [...(uses.get(from) ?? [])].some((next) => next === to || (!seen.has(next) && (seen.add(next), reaches(next, to, seen))));
    for (const [from, targets] of uses) for (const to of targets) if (reaches(to, from)) circles.push(`${from} ⇄ ${to}`);
    expect(circles).toEqual([]);
  });

  it('hold no source file a reader cannot take in at once: none over 300 lines, tests aside', () => {
    const long = sourceFiles(SOURCE)
      .filter((file) => !file.endsWith('.spec.ts'))
      .map((file) => ({ file: relative(SOURCE, file), lines: readFileSync(file, 'utf8').split('\n').length - 1 }))
      .filter(({ lines }) => lines > 300);
    expect(long).toEqual([]);
  });
});
