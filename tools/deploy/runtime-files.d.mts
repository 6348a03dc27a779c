// Types of runtime-files.mjs for the TypeScript that imports it (tools/deploy/runtime-files.int.spec.ts).

/** The npm packages `bundleFile` requires, by name (`@prisma/adapter-pg`, not `@prisma/adapter-pg/dist/x`). */
export function requiredPackages(bundleFile: string): string[];

/** The folders (relative to `root`, e.g. `node_modules/a/node_modules/b`) of `names` and of everything they depend on at run time. */
export function packageClosure(root: string, names: readonly string[]): string[];

/** Copies the package folders (packageClosure's) from `root` to the same places under `destination`, without symbolic links. */
export function copyPackages(root: string, folders: readonly string[], destination: string): void;

/** The bytes of the files in `folders` (relative to `root`), each without a node_modules inside it. */
export function sizeOfFolders(root: string, folders: readonly string[]): number;
