import { z } from 'zod';
import { defineMessage } from '../envelope';
import { IkNumber } from './ik-number';

/** A German postal code (Postleitzahl): 5 digits. */
export const PostalCode = z.string().regex(/^[0-9]{5}$/, 'a German postal code is 5 digits');

/** A point in WGS 84 degrees. */
export const Coordinates = z.strictObject({
  latitude: z.number().min(-90).max(90),
  longitude: z.number().min(-180).max(180),
});
export type Coordinates = z.infer<typeof Coordinates>;

/**
 * A participating clinic as routing's registry describes it to other services: the clinic record
 * of docs/decisions.md (`GET /api/v1/kliniken`) — `{ik, name, departments: [{code, specialty, display}]}`
 * — and, where the admin set them (`clinic upsert`), its postal code and coordinates, which only the
 * services read (asking by rule, docs/api.md, "Answer deadlines"): the public record has none.
 * Routing's internal `GET /internal/clinics` answers `{items: ClinicRecord[]}`.
 */
export const ClinicRecord = z.object({
  ik: IkNumber,
  name: z.string(),
  departments: z.array(z.object({ code: z.string(), specialty: z.string(), display: z.string() })),
  postalCode: PostalCode.optional(),
  coordinates: Coordinates.optional(),
});
export type ClinicRecord = z.infer<typeof ClinicRecord>;

export const ClinicList = z.object({ items: z.array(ClinicRecord) });
export type ClinicList = z.infer<typeof ClinicList>;

/**
 * Routing → every process that keeps the registry in memory (gateway, intake): a clinic was
 * registered or changed. A broadcast: a process that was not listening reloads the whole list.
 */
export const ClinicRegistryChangedV1 = defineMessage('clinic.registry.changed', 1, z.object({ clinic: ClinicRecord }), { broadcast: true });
export type ClinicRegistryChangedV1 = z.infer<typeof ClinicRegistryChangedV1.payload>;
