import { type ResolvedDepartment, specialtiesOfDepartment, URI_IDENTIFIER_SYSTEM } from '@bedrequest/fhir-model';
import { list, record, text, type Json } from './json-reading';
import type { Texts } from './texts.de';

/* What the request's page reads of a request beyond its fields as sent (request-view.ts): for its summary and its names. */

/**
 * Words of the referrer's notes that say how the patient moves (the request has no field of its
 * own for it: spec, ServiceRequest): walking aids, wheelchair, bedridden, stairs, transfers.
 */
export const MOBILITY =
  /mobil|gehf[äa]hig|geh(hilfe|stütze|wagen|strecke)|unterarmgehstütz|rollator|rollstuhl|bettl[äa]gerig|immobil|treppe|transfer|lagerung|sturz/i;

/**
 * The department by name (docs/inbox.md, "A request"): the German name of its specialty, or of each
 * specialty the spec's table maps its key to ("Neurologie / Neurologie Phase D (2800)"); a key the
 * table does not know by the referrer's name for it, else "Fachabteilung 3700".
 */
export function departmentName(department: ResolvedDepartment, referrersName: string | undefined, texts: Texts): string {
  const code = department.departmentCode;
  const specialties = department.specialty ? [department.specialty] : specialtiesOfDepartment(code);
  // A referrer's name that is the key itself ("Fachabteilung 3700") names nothing more.
  const named = referrersName && !referrersName.includes(code) ? referrersName : undefined;
  const name = specialties.map((specialty) => texts.specialty[specialty.code] ?? specialty.display).join(' / ') || named;
  return name ? texts.departmentNamed(name, code) : texts.department(code);
}

/**
 * The referrer's case number (Fallnummer) of the patient's stay: an identifier of the Encounter, the
 * one typed as a visit number (v2-0203 VN) first. A URI identifier names a resource, not a case, and
 * is left out.
 */
export function caseNumberOf(encounter: Json | undefined): string | undefined {
  const identifiers = list(encounter?.identifier)
    .map(record)
    .filter((id): id is Json => typeof id?.value === 'string' && id.value.trim().length > 0 && id.system !== URI_IDENTIFIER_SYSTEM);
  const visitNumber = identifiers.find((id) => list(record(id.type)?.coding).some((coding) => record(coding)?.code === 'VN'));
  return text((visitNumber ?? identifiers[0])?.value);
}
