// Types of bundle-entry.mjs for the TypeScript that imports it (bundle-script.ts, the benchmark).
type EntryPoints = string[] | Record<string, string>;

/** One entry point to `outfile`, or several to `outdir` (each `<name>.cjs`); `root` is the workspace root. */
export function bundleEntry(root: string, output: { entryPoints: EntryPoints; outfile: string } | { entryPoints: EntryPoints; outdir: string }): void;
