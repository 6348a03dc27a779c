import { z } from 'zod';
import { CLINIC_PAGE } from '@bedrequest/contracts';
import { HttpError } from '@bedrequest/http';

/**
 * The pages a clinic reads a request's versions and documents in (docs/api.md, "Clinic API"):
 * `_count` items from `_offset`, and never more than CLINIC_PAGE.maxBytes of stored bundles in one
 * answer, whatever the request holds; intake cuts the pages (it alone knows the bundles' sizes),
 * the gateway lets only these parameters through. Their values intake checks again (a `_count` over
 * 50 is its 400, passed on).
 */

// The messages also for a parameter given twice (an array).
const countMessage = `_count: a whole number from 1 to ${CLINIC_PAGE.maxCount}`;
const offsetMessage = '_offset: a whole number from 0';
const pageFields = {
  _count: z
    .string({ error: countMessage })
    .regex(/^\d{1,2}$/, countMessage)
    .optional()
    .describe(`Page size, a whole number from 1 to ${CLINIC_PAGE.maxCount} (default ${CLINIC_PAGE.defaultCount})`),
  _offset: z
    .string({ error: offsetMessage })
    .regex(/^\d{1,7}$/, offsetMessage)
    .optional()
    .describe('Where the page begins, a whole number from 0 (default 0); `next` of an answer gives the next page'),
};
const unknownParameter = (known: string) => (issue: { code: string; keys?: string[] }) =>
  issue.code === 'unrecognized_keys' ? `unknown parameter ${(issue.keys ?? []).join(', ')} (known: ${known})` : undefined;

/** `GET /api/v1/clinic/tasks/{taskId}/documents?_count=&_offset=`. */
export const ClinicDocumentPageQuery = z.strictObject(pageFields, { error: unknownParameter('_count, _offset') });

/** `GET /api/v1/clinic/tasks/{taskId}/history?_count=&_offset=`: paged like the documents. */
export const TaskHistoryPageQuery = z.strictObject(pageFields, { error: unknownParameter('_count, _offset') });

/** `GET /api/v1/clinic/tasks/{taskId}/versions?_count=&_offset=&_sort=`. */
export const RequestVersionPageQuery = z.strictObject(
  {
    ...pageFields,
    _sort: z
      .enum(['version', '-version'], { error: '_sort: version or -version' })
      .optional()
      .describe('`version`: oldest first (the default); `-version`: newest first'),
  },
  { error: unknownParameter('_count, _offset, _sort') },
);

/**
 * The query of a list read as the gateway passes it on to intake, only the parameters `schema`
 * knows; 400 `invalid_request` naming the first one refused.
 */
export function passedQuery(schema: z.ZodType<Record<string, string | undefined>>, query: unknown): URLSearchParams {
  const parsed = schema.safeParse(query);
  if (!parsed.success) throw new HttpError('invalid_request', parsed.error.issues[0]?.message ?? 'invalid query');
  return new URLSearchParams(Object.entries(parsed.data).filter((entry): entry is [string, string] => entry[1] !== undefined));
}

/** A document's position among the request's documents, from 0 (intake's order); anything else is no document (404). */
export const DocumentPosition = z
  .string()
  .regex(/^\d{1,6}$/)
  .describe("The document's position among the request's DocumentBundles, oldest first, from 0 (as the pages list them)");
