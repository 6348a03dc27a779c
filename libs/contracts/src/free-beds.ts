import { z } from 'zod';

/**
 * `PUT /api/v1/clinic/capacity/visibility` (docs/api.md, "Free beds for referrers"): whether the
 * clinic shows its published free beds to referrers. Strict, like every /api/v1 request body; the
 * gateway checks it and routing checks it again.
 */
export const FreeBedsVisibilityRequest = z.strictObject({
  shownToReferrers: z
    .boolean()
    .describe('true: referrers read the free beds the clinic published (GET /api/v1/kliniken/free-beds); false: nobody but the clinic'),
});
export type FreeBedsVisibilityRequest = z.infer<typeof FreeBedsVisibilityRequest>;

/** The clinic's setting as routing's `/internal/clinics/{ik}/free-beds-visibility` and the gateway answer it. */
export const FreeBedsVisibility = z.object({ shownToReferrers: z.boolean() });
export type FreeBedsVisibility = z.infer<typeof FreeBedsVisibility>;

/** One department of one clinic that shows its free beds, on the date asked for. */
export const FreeBedsItem = z.object({
  ik: z.string().describe('IK number of the clinic'),
  department: z.string().describe('Department key (Fachabteilungsschlüssel)'),
  published: z.number().int().describe('The admissions the clinic offers through the service that day (its bed count)'),
  held: z.number().int().describe('Beds held for requests the clinic accepted automatically, not yet selected'),
  reserved: z.number().int().describe('Beds reserved for requests whose referrer selected the clinic'),
  free: z.number().int().describe('published - held - reserved, never below 0: what the clinic\'s beds page shows as "frei"'),
});
export type FreeBedsItem = z.infer<typeof FreeBedsItem>;

/** `GET /api/v1/kliniken/free-beds?date=`: the clinics that show their free beds and published a count for the date. */
export const FreeBedsList = z.object({ date: z.string(), items: z.array(FreeBedsItem) });
export type FreeBedsList = z.infer<typeof FreeBedsList>;
