import { readFile, writeFile } from 'node:fs/promises';
import { z } from 'zod';
import type { AnchorRecord } from './anchor-chain';

/**
 * The export of the anchors (`npm run admin -- audit anchors export`, docs/data-protection.md,
 * "Anchors"): JSON Lines, one anchor a line as `audit_anchors` holds it, oldest first. Kept where
 * whoever may write to the database cannot rewrite it (object storage with retention), it shows a
 * day removed or rewritten even by someone who also holds the key the anchors are made with:
 * `audit verify --anchors <file>` wants the database to hold exactly the anchors it lists.
 */
const HEX = /^[0-9a-f]{64}$/;
const ExportedAnchor = z.object({
  day: z.iso.date(),
  headSeq: z.number().int().nonnegative(),
  headHash: z.string().regex(HEX),
  previousHash: z.string().regex(HEX).nullable(),
  hash: z.string().regex(HEX).nullable(),
  kekId: z.string().min(1),
  mac: z.string().regex(HEX),
});
const FIELDS = ['day', 'headSeq', 'headHash', 'previousHash', 'hash', 'kekId', 'mac'] as const;
/** What a failed comparison calls each field. */
const FIELD_NAMES: Record<(typeof FIELDS)[number], string> = {
  day: 'day',
  headSeq: 'head entry',
  headHash: 'head hash',
  previousHash: 'previous hash',
  hash: 'hash',
  kekId: 'KEK id',
  mac: 'MAC',
};

/** An export as read back: its file's name (for the messages) and its anchors by day. */
export interface AnchorExport {
  file: string;
  anchors: ReadonlyMap<string, AnchorRecord>;
}

/** The lines of an export of `anchors`. */
export function anchorExportLines(anchors: readonly AnchorRecord[]): string[] {
  return anchors.map((anchor) => JSON.stringify(Object.fromEntries(FIELDS.map((field) => [field, anchor[field]]))));
}

/** Writes the anchors to `file`, which must not exist yet: an export is never overwritten. */
export async function writeAnchorExport(file: string, anchors: readonly AnchorRecord[]): Promise<void> {
  try {
    await writeFile(
      file,
      anchorExportLines(anchors)
        .map((line) => `${line}\n`)
        .join(''),
      { flag: 'wx' },
    );
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'EEXIST') throw new Error(`${file} already exists: an export is never overwritten, name a new file`);
    throw new Error(`cannot write ${file}: ${(error as Error).message}`);
  }
}

/** Reads an export; throws naming the first line that is not an anchor. */
export async function readAnchorExport(file: string): Promise<AnchorExport> {
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch (error) {
    throw new Error(`cannot read ${file}: ${(error as Error).message}`);
  }
  const anchors = new Map<string, AnchorRecord>();
  for (const [index, line] of text.split('\n').entries()) {
    if (line.trim() === '') continue;
    const where = `line ${index + 1} of ${file}`;
    let json: unknown;
    try {
      json = JSON.parse(line);
    } catch {
      throw new Error(`${where} is not an exported anchor (not JSON)`);
    }
    const parsed = ExportedAnchor.safeParse(json);
    if (!parsed.success) {
      const wrong = [...new Set(parsed.error.issues.map((issue) => String(issue.path[0] ?? 'the line')))];
      throw new Error(`${where} is not an exported anchor (${wrong.join(', ')})`);
    }
    if (anchors.has(parsed.data.day)) throw new Error(`${where} repeats the anchor of ${parsed.data.day}`);
    anchors.set(parsed.data.day, parsed.data);
  }
  return { file, anchors };
}

/** Why the database's anchor of the day is not the exported one, undefined when it is (or the export has none of that day). */
export function exportDifference(exported: AnchorExport, day: string, stored: AnchorRecord | undefined): string | undefined {
  const expected = exported.anchors.get(day);
  if (!expected) return undefined;
  if (!stored) return `its anchor is exported to ${exported.file}, but the database no longer holds it (the anchor was removed)`;
  const differing = FIELDS.filter((field) => expected[field] !== stored[field]).map((field) => FIELD_NAMES[field]);
  if (differing.length === 0) return undefined;
  const listed = differing.length === 1 ? `${differing[0]} differs` : `${differing.slice(0, -1).join(', ')} and ${differing.at(-1)} differ`;
  return `its anchor is not the one exported to ${exported.file} (${listed}): the day or its anchor was rewritten`;
}
